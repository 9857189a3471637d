// Started by proxy-env.test.ts with every proxy variable set (and NODE_USE_ENV_PROXY=1): authorizes
// argv[2] with the DNS server argv[3] and requests it through the pinned options; prints the body.
import { authorizeDestination, dnsServerResolver, pinnedRequestOptions, WEB_SCHEMES } from '../../../src/resources/index.js';
import { get, grantOf } from './fixtures.js';

const [url, dnsServer] = process.argv.slice(2);
if (url === undefined || dnsServer === undefined) throw new Error('usage: proxy-env-child URL DNS_SERVER');
const dest = await authorizeDestination(url, {
  schemes: WEB_SCHEMES,
  grant: grantOf({ hosts: ['proxied.test', '127.0.0.2'], private_addresses: ['127.0.0.2'] }),
  resolver: dnsServerResolver({ servers: [dnsServer] }),
});
const res = await get(pinnedRequestOptions(dest));
// The variables really are set in this process (the test checks), and were not used.
process.stdout.write(JSON.stringify({ status: res.status, body: res.body, proxy: process.env['HTTPS_PROXY'] ?? null }));
