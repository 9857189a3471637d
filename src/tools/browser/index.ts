// The browser tools (docs/browser.md): one set per runtime, sharing that runtime's browsers.
import { anyTool, type AnyTool } from '../../registry/index.js';
import { systemResolver, type HostResolver } from '../../resources/index.js';
import { createBrowserClose, createBrowserNavigate, createBrowserOpen, createBrowserSnapshot } from './page-tools.js';
import { createBrowserClick, createBrowserDownload, createBrowserSelect, createBrowserType, createBrowserUpload } from './effect-tools.js';
import { BrowserSessions } from './sessions.js';

export interface BrowserToolOptions {
  readonly resolver?: HostResolver;
  /** The Chromium binary (default /usr/bin/chromium, Debian's package). */
  readonly chromium?: string;
}

export function createBrowserTools(o: BrowserToolOptions = {}): { tools: AnyTool[]; sessions: BrowserSessions } {
  const deps = { sessions: new BrowserSessions(), resolver: o.resolver ?? systemResolver(), ...(o.chromium ? { chromium: o.chromium } : {}) };
  return {
    sessions: deps.sessions,
    tools: [
      anyTool(createBrowserOpen(deps)),
      anyTool(createBrowserSnapshot(deps)),
      anyTool(createBrowserClick(deps)),
      anyTool(createBrowserType(deps)),
      anyTool(createBrowserSelect(deps)),
      anyTool(createBrowserNavigate(deps)),
      anyTool(createBrowserDownload(deps)),
      anyTool(createBrowserUpload(deps)),
      anyTool(createBrowserClose(deps)),
    ],
  };
}
