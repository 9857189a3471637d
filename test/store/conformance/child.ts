// A store instance in its own process, for the conformance suite's cross-process tests:
//   claim N          opens a store on REF, says READY, waits for GO, runs N concurrent claims of
//                    the request, prints their kinds as JSON, and holds its claims until stdin ends;
//   send-and-exit    claims the request, marks it sent, prints SENT and exits at once (a gone owner).
import { createInterface } from 'node:readline';
import type { ClaimRequest, Store } from '../../../src/store/index.js';

const [module, ref, mode, count, requestJson] = process.argv.slice(2) as [string, string, 'claim' | 'send-and-exit', string, string];
const backend = (await import(module)) as { open(ref: string): Promise<Store> };
const store = await backend.open(ref);
const req = JSON.parse(requestJson) as ClaimRequest;

if (mode === 'send-and-exit') {
  const r = await store.claim(req);
  if (r.kind !== 'new') throw new Error(`expected a new claim, got ${r.kind}`);
  await store.markSent(req.task_id, req.effect_key, { step: 'sent by a process that then died' });
  process.stdout.write('SENT\n');
  process.exit(0); // no letGo, no close: the owner is simply gone
}

const lines = createInterface({ input: process.stdin });
process.stdout.write('READY\n');
for await (const line of lines) {
  if (line !== 'GO') continue;
  const results = await Promise.all(Array.from({ length: Number(count) }, () => store.claim(req)));
  process.stdout.write(JSON.stringify(results.map((r) => r.kind)) + '\n');
}
// stdin ended: the parent has every result; only now may this owner let its claims go.
await store.close();
