// A runtime that opens a page and waits to be killed (orphans.test.ts).
import { createRuntime } from '../../../src/runtime/index.js';
import { envelope } from '../../support/fixtures.js';
import { grant, POLICY } from './harness.js';

const [workspace, stateDir, url] = process.argv.slice(2) as [string, string, string];
const rt = await createRuntime({ workspace, stateDir, grant: grant() as never, policies: [{ name: 'browser.cedar', text: POLICY }] });
const r = await rt.call(envelope('browser.open', { url }));
process.stdout.write(r.status === 'succeeded' ? 'ready\n' : `failed ${JSON.stringify(r.error)}\n`);
setInterval(() => undefined, 60_000);
