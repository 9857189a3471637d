export { redact, redactString, REDACTED, MIN_SECRET_LENGTH, type RedactionInput } from './redactor.js';
export { SECRET_PATTERNS, type SecretPattern } from './patterns.js';
