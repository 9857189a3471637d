import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resultOf, sessionRig } from './rig.js';

describe('shell.session redaction', () => {
  it("a secret value in an exported variable and in the output is redacted from the receipt (env values included) and its artifacts", async () => {
    const canary = `canary${randomBytes(12).toString('hex')}`;
    const rig = await sessionRig({ secrets: [canary] });
    try {
      const r = await rig.call({ command: `export TOKEN=${canary}; echo "$TOKEN"; head -c 40000 /dev/zero | tr '\\0' x; echo "$TOKEN"` });
      const res = resultOf(r);
      assert.deepEqual(res.env_changes.added, ['TOKEN']);
      assert.ok(!JSON.stringify(r).includes(canary), 'the canary is nowhere in the receipt');
      assert.ok(res.stdout.artifact, 'the stream went to an artifact');
      const artifacts = join(rig.rt.stateDir, 'artifacts');
      const files = readdirSync(artifacts, { recursive: true, withFileTypes: true }).filter((d) => d.isFile());
      for (const f of files) assert.ok(!readFileSync(join(f.parentPath, f.name), 'latin1').includes(canary), `artifact ${f.name}`);
    } finally {
      await rig.done();
    }
  });
});
