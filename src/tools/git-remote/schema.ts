import { z } from 'zod';

/** No C0 control character or DEL: nothing that could end a line or a field on the way to git. */
const printable = (s: string) => ![...s].some((c) => (c.codePointAt(0) ?? 0) < 0x20 || c === '\u007f');

const remoteArg = z
  .string()
  .min(1)
  .max(2048)
  .refine(printable, 'no control characters')
  .describe('A remote named in connectors.git (e.g. "origin"), or an http(s):// or git:// URL whose host is in the grant');

const refArg = z.string().min(1).max(1024).describe('Branch name ("main" means refs/heads/main) or a full ref (refs/heads/…, refs/tags/…); must be in the grant\'s refs');

export const gitPushArgs = z.strictObject({
  remote: remoteArg,
  ref: refArg,
  revision: z
    .string()
    .min(1)
    .max(1024)
    .refine(printable, 'no control characters')
    .default('HEAD')
    .describe('The commit to push, as the workspace repository names it (resolved to a full commit id before anything is sent)'),
  force: z.boolean().default(false).describe('Replace a remote ref that is not an ancestor of the commit: only where connectors.git allows it, and then the delete effect class'),
});
export type GitPushArgs = z.infer<typeof gitPushArgs>;

const destination = z.strictObject({
  url: z.string(),
  address: z.string(),
  port: z.number().int(),
  servername: z.string().nullable(),
  addresses: z.array(z.strictObject({ address: z.string(), class: z.string() })),
});

/** One line of `git push --porcelain`: what the remote (or git, before sending) said of a ref. */
export const refAnswer = z.strictObject({
  ref: z.string(),
  flag: z.string().describe("' ' fast-forward, '+' forced, '*' new, '=' up to date, '!' rejected"),
  summary: z.string(),
});
export type RefAnswer = z.infer<typeof refAnswer>;

export const gitPushResult = z.strictObject({
  remote: z.string().describe('The remote as named in the call'),
  url: z.string().describe('The URL as normalized'),
  ref: z.string().describe('The full ref name pushed to'),
  old: z.string().nullable().describe('The ref at the remote before the push (null: it did not exist)'),
  new: z.string().describe('The commit pushed'),
  forced: z.boolean(),
  outcome: z.enum(['updated', 'created', 'up_to_date']),
  answer: refAnswer.nullable().describe("The remote's answer for the ref (null when nothing had to be sent)"),
  destination,
});
export type GitPushResult = z.infer<typeof gitPushResult>;

export const gitFetchArgs = z.strictObject({
  remote: remoteArg,
  refs: z.array(refArg).min(1).max(32).describe('Remote refs to fetch; each must be in the grant\'s refs'),
  name: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/)
    .optional()
    .describe('For a URL remote: the name under refs/remotes/ (default "fetched"); a configured remote uses its own name'),
});
export type GitFetchArgs = z.infer<typeof gitFetchArgs>;

export const gitFetchResult = z.strictObject({
  remote: z.string(),
  url: z.string(),
  refs: z.array(
    z.strictObject({
      ref: z.string(),
      oid: z.string().nullable().describe('null: the remote has no such ref (nothing written)'),
      tracking_ref: z.string(),
      old: z.string().nullable().describe('The tracking ref before the fetch'),
    }),
  ),
  destination,
});
export type GitFetchResult = z.infer<typeof gitFetchResult>;
