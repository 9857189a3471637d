// The matcher the JavaScript engine runs in a worker thread. It is plain JavaScript source so
// that the worker needs no loader; it only matches bytes it is handed and reads no file.
// Terminating the worker stops a backtracking regex mid-match: V8 checks for interrupts
// inside its regex loops. Hits go back packed (packHits: each line's text once, not once a hit).
import { packHits } from './literal-scan.js';

export const SCAN_WORKER_SOURCE = String.raw`
const { parentPort } = require('node:worker_threads');
${packHits.toString()}

function escapeRegExp(s) { return s.replace(/[.*+?^${'$'}{}()|[\]\\\/-]/g, '\\$&'); }

function scanLiteral(buf, needle, want) {
  const hits = [];
  let count = 0;
  // The next newline is found once, and a line's text made once for all its hits: per hit, both
  // were quadratic in a long line of many hits (as in literal-scan.ts).
  let line = 1, lineStart = 0, nextNewline = buf.indexOf(10), text = null;
  for (let i = buf.indexOf(needle, 0); i !== -1; i = buf.indexOf(needle, i + needle.length)) {
    while (nextNewline !== -1 && nextNewline < i) { line++; lineStart = nextNewline + 1; text = null; nextNewline = buf.indexOf(10, lineStart); }
    count++;
    if (want === 'paths') break;
    if (want === 'lines') {
      if (text === null) text = buf.toString('utf8', lineStart, nextNewline === -1 ? buf.length : nextNewline);
      hits.push({ line, column: i - lineStart + 1, end_column: i - lineStart + needle.length + 1, text });
    }
  }
  return { hits, count };
}

function scanRegex(buf, re, want) {
  const hits = [];
  let count = 0;
  const lines = buf.toString('utf8').split('\n');
  for (let n = 0; n < lines.length; n++) {
    const s = lines[n];
    re.lastIndex = 0;
    let m;
    while ((m = re.exec(s)) !== null) {
      if (m[0].length === 0) { re.lastIndex += s.codePointAt(re.lastIndex) > 0xffff ? 2 : 1; if (re.lastIndex > s.length) break; continue; }
      count++;
      if (want === 'paths') return { hits, count };
      if (want === 'lines') {
        const start = Buffer.byteLength(s.slice(0, m.index));
        const len = Buffer.byteLength(m[0]);
        hits.push({ line: n + 1, column: start + 1, end_column: start + len + 1, text: s });
      }
    }
  }
  return { hits, count };
}

parentPort.on('message', (msg) => {
  try {
    const q = msg.query;
    let re = null, needle = null;
    if (q.kind === 'literal' && q.caseSensitive) needle = Buffer.from(q.pattern, 'utf8');
    else re = new RegExp(q.kind === 'literal' ? escapeRegExp(q.pattern) : q.pattern, q.caseSensitive ? 'gu' : 'giu');
    const results = [];
    for (const f of msg.files) {
      const buf = Buffer.from(f.data.buffer, f.data.byteOffset, f.data.byteLength);
      const r = needle ? scanLiteral(buf, needle, q.want) : scanRegex(buf, re, q.want);
      if (r.count > 0) results.push({ path: f.path, packed: packHits(r.hits), count: r.count });
    }
    parentPort.postMessage({ id: msg.id, results });
  } catch (e) {
    parentPort.postMessage({ id: msg.id, error: String(e && e.message) });
  }
});
`;
