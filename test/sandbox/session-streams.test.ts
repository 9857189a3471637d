import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MarkerSplitter } from '../../src/sandbox/session-streams.js';
import { DriverReportParser, envChanges, syncMarker } from '../../src/sandbox/session-driver.js';

function collect(splitter: MarkerSplitter, marker: Buffer): { out: Buffer[]; ended: () => boolean } {
  const out: Buffer[] = [];
  let ended = false;
  splitter.begin(marker, { data: (c) => out.push(Buffer.from(c)), ended: () => (ended = true) });
  return { out, ended: () => ended };
}

describe('session output split at per-command markers', () => {
  it('finds a marker split across chunks at every position, and gives what follows to the next command', () => {
    const marker = syncMarker('ab'.repeat(16));
    const stream = Buffer.concat([Buffer.from('first output\n'), marker, Buffer.from('late background')]);
    for (let cut = 1; cut < stream.length; cut++) {
      const s = new MarkerSplitter();
      const first = collect(s, marker);
      s.push(stream.subarray(0, cut));
      s.push(stream.subarray(cut));
      assert.equal(Buffer.concat(first.out).toString(), 'first output\n', `cut at ${cut}`);
      assert.equal(first.ended(), true);
      const next = collect(s, syncMarker('cd'.repeat(16)));
      assert.equal(Buffer.concat(next.out).toString(), 'late background');
    }
  });

  it("a marker with another command's nonce (forged or stale) is output, not an end", () => {
    const s = new MarkerSplitter();
    const mine = collect(s, syncMarker('11'.repeat(16)));
    const forged = syncMarker('22'.repeat(16));
    s.push(Buffer.concat([Buffer.from('x'), forged, Buffer.from('y')]));
    s.close();
    assert.equal(mine.ended(), false);
    assert.deepEqual(Buffer.concat(mine.out), Buffer.concat([Buffer.from('x'), forged, Buffer.from('y')]));
  });

  it('keeps at most 64 KiB of output that arrives between commands, counting what it drops', () => {
    const s = new MarkerSplitter();
    for (let i = 0; i < 100; i++) s.push(Buffer.alloc(1024, 0x61));
    assert.equal(s.droppedBetween, 36 * 1024);
    const next = collect(s, syncMarker('33'.repeat(16)));
    assert.equal(Buffer.concat(next.out).length, 64 * 1024);
  });
});

describe('driver reports', () => {
  it('parses NUL-separated reports across chunks, env values with newlines and "=" included', () => {
    const p = new DriverReportParser();
    const raw = Buffer.from('3\x001\x00/w/sub\x00A=1\x00B=x=y\nz\x00_=/usr/bin/env\x00SHLVL=1\x00E\x00');
    const got = [...p.push(raw.subarray(0, 7)), ...p.push(raw.subarray(7))];
    assert.deepEqual(got, [{ seq: 3, status: 1, cwd: '/w/sub', env: { A: '1', B: 'x=y\nz' } }]);
    assert.deepEqual(envChanges({ A: '0', C: '1' }, { A: '1', B: '2' }), { added: ['B'], changed: ['A'], removed: ['C'] });
  });
});
