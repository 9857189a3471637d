export { redact, redactText, spansInWindow, type RedactionInput, type TextWindow } from './redactor.js';
export { findSecrets, applySpans, mergeSpans, markerOf, usableSecrets, REDACTED, MIN_SECRET_LENGTH, type SecretSpan } from './detect.js';
export { SECRET_RULES, MAX_TOKEN_CHARS, type SecretRule } from './rules.js';
export { StreamRedactor } from './stream.js';
