/**
 * Secret rules scanned in everything Toolgate records. They follow the rule set of secretlint's
 * recommended preset (@secretlint/secretlint-rule-preset-recommend), which stays the oracle of a
 * property test (test/redact/secretlint-oracle.test.ts), plus what that preset lacks: AWS key
 * ids, every PEM private key label, JWTs, `password=`-style assignments, bearer tokens.
 *
 * Why not call secretlint itself: its API is asynchronous (streams and artifact writers are
 * synchronous), it costs 0.3-0.45 ms per small string here (a whole runtime.call is ~0.9 ms), and
 * its preset misses AWS key ids and PKCS#8 / encrypted keys. docs/redaction.md has the figures.
 *
 * Every quantifier is bounded by MAX_TOKEN_CHARS (except the private key body, which the
 * stream redactor follows as a state), so a scanner holding back that many characters at a
 * window edge sees every token whole.
 */
export interface SecretRule {
  readonly id: string;
  /** Global; with indices (`d`) when it has named groups `s`, `s2`, … are the secret (the first that took part); else the whole match. */
  readonly re: RegExp;
  /** Literals of which at least one occurs in any match (case-sensitive unless `caseless`). */
  readonly hints: readonly string[];
  readonly caseless?: boolean;
  /** A match whose secret part is one of these is not a secret (placeholders, types). */
  readonly skip?: (secret: string) => boolean;
}

/** Longest token any rule but the private key can match: the hold-back at window edges. */
export const MAX_TOKEN_CHARS = 4096;

// Looser than secretlint's boundaries (a letter may not precede; anything may follow), so that
// these rules match wherever its rules do: redacting a little more is the safe direction.
const L = '(?<![A-Za-z])';
const R = '';

const rule = (id: string, source: string, hints: readonly string[], extra: Partial<Pick<SecretRule, 'caseless' | 'skip'>> = {}): SecretRule => ({
  id,
  // Indices (`d`) cost an allocation per match: only rules that name a secret group ask for them.
  re: new RegExp(source, `g${source.includes('(?<s') ? 'd' : ''}${extra.caseless ? 'i' : ''}`),
  hints,
  ...extra,
});

/** Values of `key = value` that are placeholders or type names, not secrets. */
const NOT_A_VALUE = /^(?:true|false|null|nil|none|undefined|string|str|number|int|integer|boolean|bool|bytes|any|unknown|object|secret|password|redacted|\d{1,5}|\*+|x+|\.\.\.|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\{\{[^}]*\}\}|<[^>]*>|\[REDACTED[^\]]*\])$/i;

// Anchored on the keyword itself (no leading [\w.-]* that backtracks over every word of a
// file): `DB_PASSWORD=`, `mytoken=`, `--passphrase=` all end in one.
const ASSIGNED_KEY = '(?:passw(?:or)?d|passphrase|secret|token|auth(?:orization)?|credentials?|(?:api|access|secret|private|client|signing|encryption|master|session)[_-]?key)';
/** `=`, `:`, `:=`, `=>`; not a comparison (`==`, `===`) or a scope (`::`). */
const CONNECT = '\\s*(?:=>|:=|=(?![=~])|:(?!:))\\s*';
/**
 * Not after `PATH: ` whose last component ends in a key word: in `cat: /root/.git-credentials:
 * Permission denied` or `.aws/credentials: No such file` a file name is followed by an error
 * message, not a key by its value. The name counts as a path when a `/`, a backslash or `~` is
 * right before it or it starts with a dot (`.git-credentials: …`); `spring.datasource.password: x`
 * (dots only inside a name) stays a key. Only an unquoted value after a colon: `=` assignments and
 * quoted values are redacted as before (the safe direction).
 */
const NOT_AFTER_PATH = '(?<!(?:[/\\\\~]|(?<![\\w.-])\\.)[\\w.-]{0,256}["\']?\\s*:\\s*)';

export const SECRET_RULES: readonly SecretRule[] = [
  rule(
    'private-key',
    '-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----[\\s\\S]*?(?:-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|$)',
    ['PRIVATE KEY'],
  ),
  rule('aws-access-key-id', `\\b(?:A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA)[A-Z0-9]{16}\\b`, ['AKIA', 'ASIA', 'A3T', 'AGPA', 'AIDA', 'AROA', 'AIPA', 'ANPA', 'ANVA']),
  rule('github-token', `${L}(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9_]{36,255}${R}`, ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_']),
  rule('github-app-token', `${L}ghs_[0-9]{1,20}_[A-Za-z0-9_-]{1,1000}\\.[A-Za-z0-9_-]{1,2000}\\.[A-Za-z0-9_-]{1,1000}${R}`, ['ghs_']),
  rule('github-fine-grained-token', `${L}github_pat_[A-Za-z0-9_]{22,255}${R}`, ['github_pat_']),
  rule('gitlab-token', `${L}glpat-[A-Za-z0-9_-]{20,128}${R}`, ['glpat-']),
  rule('grafana-token', `${L}(?:glc_[A-Za-z0-9+/]{32,400}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})`, ['glc_', 'glsa_']),
  rule('slack-token', `\\b(?:xox[abposr]|xapp)-[A-Za-z0-9-]{10,250}\\b`, ['xox', 'xapp-']),
  rule('slack-webhook', `https://hooks\\.slack\\.com/services/T[a-zA-Z0-9]{1,40}/B[a-zA-Z0-9]{1,40}/[a-zA-Z0-9]{1,40}`, ['hooks.slack.com'], { caseless: true }),
  rule('npm-token', `${L}npm_[A-Za-z0-9_]{36}${R}`, ['npm_']),
  rule('npmrc-auth-token', `_authToken=(?<s>[^$\\s][^\\s]{0,1000})`, ['_authToken=']),
  rule('anthropic-key', `${L}sk-ant-[A-Za-z0-9_-]{32,400}${R}`, ['sk-']),
  // Not after a letter or digit: `task-…` or `risk-…` in a path is not a key; project and
  // marked (T3BlbkFJ) keys match anywhere, as in secretlint.
  rule('openai-key', `\\bsk-(?!ant-)[A-Za-z0-9_-]{32,400}|sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,400}|sk-[A-Za-z0-9_-]{1,200}T3BlbkFJ[A-Za-z0-9_-]{20,400}`, ['sk-']),
  rule('stripe-key', `${L}(?:sk|rk)_(?:live|test)_[0-9a-zA-Z]{24,99}`, ['k_live_', 'k_test_']),
  rule('google-api-key', `${L}AIza[0-9A-Za-z_-]{35}${R}`, ['AIza']),
  rule('groq-key', `${L}gsk_[a-zA-Z0-9]{52}`, ['gsk_']),
  rule('huggingface-token', `${L}hf_[a-zA-Z]{34}`, ['hf_']),
  rule('linear-key', `${L}lin_api_[a-zA-Z0-9_]{32,128}`, ['lin_api_']),
  rule('notion-token', `${L}ntn_[0-9]{11}[A-Za-z0-9]{35}`, ['ntn_']),
  rule('sendgrid-key', `${L}SG\\.[\\w-]{1,128}\\.[\\w-]{1,260}`, ['SG.']),
  rule('shopify-token', `${L}(?:shppa|shpca|shpat|shpss)_[a-zA-Z0-9]{32,64}`, ['shp']),
  rule('onepassword-token', `${L}ops_ey[A-Za-z0-9+/=]{100,1280}`, ['ops_ey']),
  rule('vault-token', `${L}hv[sbr]\\.[A-Za-z0-9_-]{90,300}${R}`, ['hvs.', 'hvb.', 'hvr.']),
  rule('vercel-token', `${L}(?:vcp|vci|vca|vcr|vck)_[A-Za-z0-9]{20,60}`, ['vcp_', 'vci_', 'vca_', 'vcr_', 'vck_']),
  rule('databricks-token', `${L}dapi[A-Fa-f0-9]{32}(?:-[0-9])?`, ['dapi']),
  rule('docker-token', `${L}dckr_pat_[a-zA-Z0-9_-]{27}${R}`, ['dckr_pat_']),
  rule('figma-token', `${L}figd_[A-Za-z0-9_-]{40,200}${R}`, ['figd_']),
  rule('cloudflare-token', `${L}(?:cfk|cfut|cfat)_[A-Za-z0-9]{40}[0-9a-f]{8}`, ['cfk_', 'cfut_', 'cfat_']),
  rule('tailscale-key', `${L}tskey-[a-z]{2,20}-[0-9A-Za-z_]{8,40}-[0-9A-Za-z_]{16,60}`, ['tskey-']),
  rule('jwt', `${L}eyJ[A-Za-z0-9_-]{4,1400}\\.eyJ[A-Za-z0-9_-]{4,2000}\\.[A-Za-z0-9_-]{0,600}${R}`, ['eyJ']),
  // user:password@host in any URL (basic auth, database connection strings): the password.
  rule('url-credentials', `://[^:/\\s@"'<>]{0,256}:(?<s>[^@/\\s"'<>]{1,256})@[^\\s/?#"'<>]{1,256}`, ['://'], { caseless: true }),
  rule('bearer-token', `\\bBearer\\s+(?<s>[A-Za-z0-9._~+/-]{12,2000}=*)`, ['bearer'], { caseless: true }),
  // key = "value", key: 'value', KEY=value, --password=value, "password": "value".
  rule('assigned-secret', `${ASSIGNED_KEY}["']?${CONNECT}(?:"(?<s>[^"\\n]{1,1000})"|'(?<s2>[^'\\n]{1,1000})'|${NOT_AFTER_PATH}(?<s3>[^\\s"',;()\`]{1,1000})(?=[\\s"',;)\`]|$))`, ['pass', 'secret', 'token', 'auth', 'cred', 'key'], {
    caseless: true,
    skip: (v) => NOT_A_VALUE.test(v),
  }),
];
