/**
 * Secret patterns scanned in every string a receipt records. Kept to shapes that are
 * unambiguous (prefixes and armour), so that ordinary code is not redacted by accident.
 */
export interface SecretPattern {
  readonly id: string;
  readonly re: RegExp;
}

export const SECRET_PATTERNS: readonly SecretPattern[] = [
  { id: 'private-key', re: /-----BEGIN ([A-Z0-9 ]+ )?PRIVATE KEY-----[\s\S]*?(-----END ([A-Z0-9 ]+ )?PRIVATE KEY-----|$)/g },
  { id: 'aws-access-key-id', re: /\b(AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { id: 'github-token', re: /\b(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b/g },
  { id: 'github-fine-grained-token', re: /\bgithub_pat_[A-Za-z0-9_]{22,255}\b/g },
  { id: 'slack-token', re: /\bxox[abposr]-[A-Za-z0-9-]{10,250}\b/g },
  { id: 'npm-token', re: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { id: 'openai-key', re: /\bsk-(proj-)?[A-Za-z0-9_-]{32,}\b/g },
  { id: 'anthropic-key', re: /\bsk-ant-[A-Za-z0-9_-]{32,}\b/g },
  { id: 'google-api-key', re: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { id: 'stripe-key', re: /\b(sk|rk)_(live|test)_[0-9a-zA-Z]{24,}\b/g },
];

/** Cheap pre-check: every pattern above contains one of these literals (one native scan). */
const HINTS = /PRIVATE KEY|AKIA|ASIA|gh[pousr]_|github_pat_|xox|npm_|sk-|AIza|_live_|_test_/;

export function mayHoldSecret(text: string): boolean {
  return HINTS.test(text);
}
