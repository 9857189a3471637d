// Unknown fields and wrong types for every mapped tool, generated with fast-check (a fixed seed,
// so a scorecard can be compared between runs): each must be refused or answered without an
// escape, a crash or a hang.
import fc from 'fast-check';
import { OPERATIONS } from './map.js';
import { argsOf, judge, type AttemptResult, type KitContext } from './attempt.js';

const RUNS_PER_TOOL = 20;
const SEED = 20261204;

/** Arguments that are wrong in one of the ways a model gets them wrong. */
function wrongArgs(valid: Record<string, unknown>, runsCommands: boolean): fc.Arbitrary<Record<string, unknown>> {
  const keys = Object.keys(valid);
  const wrongValue = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }), fc.string({ maxLength: 3000 }));
  // A tool that runs commands is never handed a random string where a command may go.
  if (runsCommands) {
    return fc.oneof(
      fc.tuple(fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !keys.includes(s)), fc.jsonValue()).map(([k, v]) => ({ ...valid, [k]: v })),
      keys.length > 0 ? fc.tuple(fc.constantFrom(...keys), fc.oneof(fc.integer(), fc.boolean(), fc.constant(null))).map(([k, v]) => ({ ...valid, [k]: v })) : fc.constant({ ...valid, x: 1 }),
    );
  }
  return fc.oneof(
    // An unknown field beside valid ones.
    fc.tuple(fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !keys.includes(s)), fc.jsonValue()).map(([k, v]) => ({ ...valid, [k]: v })),
    // A known field of the wrong type.
    keys.length > 0 ? fc.tuple(fc.constantFrom(...keys), wrongValue).map(([k, v]) => ({ ...valid, [k]: v })) : fc.constant({ ...valid, x: 1 }),
    // A field missing.
    keys.length > 0 ? fc.constantFrom(...keys).map((k) => Object.fromEntries(Object.entries(valid).filter(([kk]) => kk !== k))) : fc.constant({}),
    // Anything at all.
    fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
  );
}

export async function schemaFuzz(k: KitContext): Promise<AttemptResult[]> {
  const f = 'unknown fields and wrong types';
  const out: AttemptResult[] = [];
  for (const op of OPERATIONS) {
    const call = argsOf(k, op, { path: 'inside.txt', content: 'x\n', old: 'inside', new: 'inside', edits: [], pattern: 'inside', command: 'true', to: 'moved.txt', line: 1, lines: 5 });
    if (!call) continue;
    const samples = fc.sample(wrongArgs(call.args as Record<string, unknown>, op === 'exec'), { numRuns: RUNS_PER_TOOL, seed: SEED });
    for (const [i, args] of samples.entries()) {
      const before = k.fx.outsideState();
      const a = await k.target.call(call.tool, args, { boundMs: k.boundMs });
      out.push({ family: f, name: `${op} (${call.tool}) #${i + 1}: ${JSON.stringify(args).slice(0, 80)}`, ...judge(k, a, before) });
    }
  }
  return out;
}
