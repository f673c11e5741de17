// The SSRF table: hostile webhook URLs that must be refused at save time, each for the right reason, and
// legitimate public URLs that must be accepted. Connect-time refusals (DNS rebinding) are in send.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sendWebhook } from '../../src/webhooks/send.ts';
import { checkWebhookUrl } from '../../src/webhooks/ssrf.ts';

const LOOPBACK = /loopback/;
const PRIVATE = /private/;
const LINK_LOCAL = /link-local/;
const INTERNAL = /internal/;

const HOSTILE: [url: string, reason: RegExp, why: string][] = [
  ['http://2130706433/hook', /must use https/, 'decimal 127.0.0.1 over plain http'],
  ['https://2130706433/hook', LOOPBACK, 'decimal 127.0.0.1'],
  ['https://0177.0.0.1/hook', LOOPBACK, 'octal'],
  ['https://0x7f.1/hook', LOOPBACK, 'hex and short form'],
  ['https://0x7f000001/hook', LOOPBACK, 'one hex number'],
  ['https://017700000001/hook', LOOPBACK, 'one octal number'],
  ['https://127.1/hook', LOOPBACK, 'short form'],
  ['https://127.000.000.001/hook', LOOPBACK, 'zero-padded'],
  ['https://127.0.0.1:8443/hook', LOOPBACK, 'loopback with a port'],
  ['https://[::1]/hook', LOOPBACK, 'IPv6 loopback'],
  ['https://[::ffff:127.0.0.1]/hook', LOOPBACK, 'IPv4-mapped IPv6, dotted'],
  ['https://[::ffff:7f00:1]/hook', LOOPBACK, 'IPv4-mapped IPv6, hex'],
  ['https://[0:0:0:0:0:ffff:7f00:1]/hook', LOOPBACK, 'IPv4-mapped IPv6, uncompressed'],
  ['https://[::127.0.0.1]/hook', /IPv4-compatible/, 'IPv4-compatible IPv6'],
  ['https://[64:ff9b::a9fe:a9fe]/hook', LINK_LOCAL, 'NAT64 of 169.254.169.254'],
  ['https://[2002:a00:1::]/hook', PRIVATE, '6to4 of 10.0.0.1'],
  ['https://[fc00::1]/hook', /unique local/, 'ULA fc00::/7, low half'],
  ['https://[fd12:3456:789a::1]/hook', /unique local/, 'ULA fc00::/7, high half'],
  ['https://[fe80::1]/hook', LINK_LOCAL, 'IPv6 link-local fe80::/10'],
  ['https://[ff02::1]/hook', /multicast/, 'IPv6 multicast'],
  ['https://[::]/hook', /unspecified/, 'IPv6 unspecified'],
  ['https://0.0.0.0/hook', /this network/, '0.0.0.0'],
  ['https://0/hook', /this network/, '0 as a single number'],
  ['https://255.255.255.255/hook', /broadcast/, 'broadcast'],
  ['https://224.0.0.251/hook', /multicast/, 'multicast (mDNS)'],
  ['https://169.254.169.254/latest/meta-data/', LINK_LOCAL, 'cloud metadata'],
  ['https://169.254.10.20/hook', LINK_LOCAL, 'link-local 169.254/16'],
  ['https://10.0.0.5/hook', PRIVATE, 'RFC 1918 10/8'],
  ['https://172.16.3.4/hook', PRIVATE, 'RFC 1918 172.16/12'],
  ['https://172.31.255.255/hook', PRIVATE, 'RFC 1918 172.16/12, top'],
  ['https://192.168.1.1/hook', PRIVATE, 'RFC 1918 192.168/16'],
  ['https://100.64.0.1/hook', /carrier-grade/, 'CGNAT 100.64/10'],
  ['https://100.100.100.200/hook', /carrier-grade/, 'Alibaba metadata, inside CGNAT'],
  ['https://198.18.0.1/hook', /benchmarking/, '198.18/15'],
  ['https://198.19.255.254/hook', /benchmarking/, '198.18/15, top'],
  ['https://240.0.0.1/hook', /reserved/, 'class E'],
  ['https://localhost/hook', INTERNAL, 'localhost'],
  ['https://LocalHost:8443/hook', INTERNAL, 'localhost, mixed case'],
  ['https://api.localhost/hook', INTERNAL, '*.localhost'],
  ['https://localhost./hook', /trailing dot/, 'trailing-dot localhost'],
  ['https://127.0.0.1.nip.io./hook', /trailing dot/, 'trailing-dot hostname'],
  ['https://metadata.google.internal/computeMetadata/v1/', INTERNAL, 'GCP metadata name'],
  ['https://printer.local/hook', INTERNAL, 'mDNS name'],
  ['https://intranet/hook', INTERNAL, 'single-label name'],
  ['https://user:pass@example.com/hook', /Credentials/, 'credentials'],
  ['https://example.com:22/hook', /Port 22/, 'SSH port'],
  ['gopher://example.com/hook', /https/, 'other scheme'],
];

const LEGIT = [
  'https://example.com/hook',
  'https://hooks.example.org:8443/a?b=c',
  'https://api.clinic-billing.io/v1/webhooks/eligibility',
  'https://93.184.216.34/x',
  'https://8.8.8.8:1024/x',
  'https://100.128.0.1/x', // just above CGNAT
  'https://172.32.0.1/x', // just above 172.16/12
  'https://[2606:4700::1111]/x',
  'https://[::ffff:8.8.8.8]/x', // IPv4-mapped form of a public address
  'https://bücher.example/hook',
];

test(`${HOSTILE.length} hostile webhook URLs are refused, each for its own reason`, () => {
  assert.ok(HOSTILE.length >= 15);
  for (const [url, reason, why] of HOSTILE) {
    const result = checkWebhookUrl(url, { allowPrivate: false });
    assert.equal(result.ok, false, `${why}: ${url} was accepted`);
    if (!result.ok) assert.match(result.reason, reason, `${why}: ${url} → ${result.reason}`);
  }
});

test('the sender refuses every hostile URL too, without connecting', async () => {
  for (const [url, , why] of HOSTILE) {
    const result = await sendWebhook({ url, body: '{}', headers: {}, allowPrivate: false });
    assert.equal(result.outcome, 'refused', why);
  }
});

test(`${LEGIT.length} public https URLs are accepted`, () => {
  for (const url of LEGIT) {
    const result = checkWebhookUrl(url, { allowPrivate: false });
    assert.ok(result.ok, `${url}: ${result.ok ? '' : result.reason}`);
  }
});
