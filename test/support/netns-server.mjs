// A server run inside a test's network namespace (test/support/netns.ts): HTTP on the address it
// is given, an ephemeral port. GET of a path in the file table answers that file (a registry's
// packument and tarball); /hang holds its answer until the client goes; anything else answers
// `hello <path>`. It counts every TCP connection and reports over its IPC channel.
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { Buffer } from 'node:buffer';

const [address, filesJson] = process.argv.slice(2);
const files = JSON.parse(filesJson ?? '{}');
let connections = 0;
const open = new Set();
const requests = [];

const server = createServer((req, res) => {
  requests.push(`${req.method} ${req.url}`);
  const path = (req.url ?? '/').split('?')[0];
  if (Object.hasOwn(files, path)) {
    const body = readFileSync(files[path]);
    res.writeHead(200, { 'content-type': path.endsWith('.tgz') ? 'application/octet-stream' : 'application/json', 'content-length': body.length });
    return res.end(body);
  }
  if (path === '/hang') return res.writeHead(200, { 'content-type': 'text/plain' }).write('waiting\n');
  const body = `hello ${path} from ${address}\n`;
  res.writeHead(200, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.on('connection', (s) => {
  connections += 1;
  open.add(s);
  s.once('close', () => open.delete(s));
});
process.on('message', (m) => {
  if (m?.op === 'stats') process.send?.({ id: m.id, stats: { connections, open: open.size, requests } });
});
process.on('disconnect', () => process.exit(0));
server.listen(0, address, () => process.send?.({ port: server.address().port }));
