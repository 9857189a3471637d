// The browser tools (docs/browser.md): one set per runtime, sharing that runtime's browsers.
import { digestOf } from '../../protocol/index.js';
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
  const tools = [
    anyTool(createBrowserOpen(deps)),
    anyTool(createBrowserSnapshot(deps)),
    anyTool(createBrowserClick(deps)),
    anyTool(createBrowserType(deps)),
    anyTool(createBrowserSelect(deps)),
    anyTool(createBrowserNavigate(deps)),
    anyTool(createBrowserDownload(deps)),
    anyTool(createBrowserUpload(deps)),
    anyTool(createBrowserClose(deps)),
  ];
  return { sessions: deps.sessions, tools: tools.map(withOwnDigest) };
}

/**
 * The nine tools share this folder, so the registry's digest of its files is the same for all;
 * each gets it bound to its own name (as git.push/git.fetch do): a change in any shared file
 * moves all nine, and the entries stay distinct (docs/registry.md).
 */
function withOwnDigest(tool: AnyTool): AnyTool {
  return { ...tool, implementation_digest: digestOf({ folder: tool.implementation_digest, tool: tool.name }) };
}
