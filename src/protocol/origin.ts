// Where a call came from when a compatibility profile made it (docs/profiles.md): the profile,
// the agent's own tool name and the digest of the agent's own arguments. The envelope carries
// it, the receipt records it (digested like every other field), so an operator can tell which
// `Edit` of Claude Code became which fs.patch. Versioned by `kind`; absent on native calls, so
// receipts without a profile keep the shape (and digests) they had.
import { z } from 'zod';
import type { Digest } from './canonical.js';

export const PROFILE_ORIGIN_KIND = 'profile.v1';

export interface ProfileOrigin {
  readonly kind: typeof PROFILE_ORIGIN_KIND;
  /** The profile's name, e.g. `claude-code`. */
  readonly profile: string;
  /** The agent's tool name, e.g. `Edit`. */
  readonly tool: string;
  /** `sha256:` of the RFC 8785 canonical JSON of the agent's arguments (never the arguments). */
  readonly arguments_digest: Digest;
}

export const profileOriginSchema = z.strictObject({
  kind: z.literal(PROFILE_ORIGIN_KIND),
  profile: z.string().regex(/^[a-z][a-z0-9-]{0,63}$/, 'profile name: a-z 0-9 -'),
  tool: z.string().regex(/^[A-Za-z][A-Za-z0-9_.-]{0,127}$/, 'tool name: A-Z a-z 0-9 _ . -'),
  arguments_digest: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'sha256:<64 hex>'),
});
