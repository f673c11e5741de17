import assert from 'node:assert/strict';
import { BlockList } from 'node:net';
import { describe, test } from 'node:test';
import {
  forbiddenAddressReason,
  isForbiddenAddress,
  parseIPv4,
  parseIPv6,
} from '../../src/webhooks/addresses.ts';

const hex = (bytes: Uint8Array | null) => (bytes ? Buffer.from(bytes).toString('hex') : null);

describe('address parsing', () => {
  test('IPv4: strict dotted decimal only', () => {
    assert.equal(hex(parseIPv4('127.0.0.1')), '7f000001');
    assert.equal(hex(parseIPv4('255.255.255.255')), 'ffffffff');
    for (const bad of [
      '0177.0.0.1',
      '127.1',
      '2130706433',
      '0x7f.0.0.1',
      '256.0.0.1',
      '1.2.3.4.5',
      '',
      '1.2.3.',
      ' 1.2.3.4',
    ]) {
      assert.equal(parseIPv4(bad), null, bad);
    }
  });

  test('IPv6: compression, embedded dotted quads, zone ids, case', () => {
    const cases: [string, string][] = [
      ['::', '00000000000000000000000000000000'],
      ['::1', '00000000000000000000000000000001'],
      ['::ffff:127.0.0.1', '00000000000000000000ffff7f000001'],
      ['0:0:0:0:0:ffff:7f00:1', '00000000000000000000ffff7f000001'],
      ['0000:0000:0000:0000:0000:FFFF:7F00:0001', '00000000000000000000ffff7f000001'],
      ['fe80::1%eth0', 'fe800000000000000000000000000001'],
      ['2001:db8:0:0:1::', '20010db8000000000001000000000000'],
      ['2606:4700::1111', '26064700000000000000000000001111'],
    ];
    for (const [text, bytes] of cases) assert.equal(hex(parseIPv6(text)), bytes, text);
    for (const bad of [
      ':::',
      '1::2::3',
      '1:2:3:4:5:6:7:8:9',
      '1:2:3:4:5:6:7',
      '1:2:3:4:5:6:7:8::',
      '12345::',
      'g::1',
      '::1.2.3',
      '1.2.3.4::',
      ':1::',
      '',
    ]) {
      assert.equal(parseIPv6(bad), null, bad);
    }
  });
});

describe('forbidden addresses', () => {
  test('every IPv4 block in the table, at both edges, with the neighbours outside allowed', () => {
    // [first, last, neighbour below, neighbour above]
    const edges: [string, string, string | null, string | null][] = [
      ['0.0.0.0', '0.255.255.255', null, '1.0.0.0'],
      ['10.0.0.0', '10.255.255.255', '9.255.255.255', '11.0.0.0'],
      ['100.64.0.0', '100.127.255.255', '100.63.255.255', '100.128.0.0'],
      ['127.0.0.0', '127.255.255.255', '126.255.255.255', '128.0.0.0'],
      ['169.254.0.0', '169.254.255.255', '169.253.255.255', '169.255.0.0'],
      ['172.16.0.0', '172.31.255.255', '172.15.255.255', '172.32.0.0'],
      ['192.168.0.0', '192.168.255.255', '192.167.255.255', '192.169.0.0'],
      ['198.18.0.0', '198.19.255.255', '198.17.255.255', '198.20.0.0'],
      ['224.0.0.0', '255.255.255.255', '223.255.255.255', null],
    ];
    for (const [first, last, below, above] of edges) {
      assert.equal(isForbiddenAddress(first), true, first);
      assert.equal(isForbiddenAddress(last), true, last);
      if (below) assert.equal(isForbiddenAddress(below), false, below);
      if (above) assert.equal(isForbiddenAddress(above), false, above);
    }
  });

  test('named reasons for the addresses people actually try', () => {
    assert.match(forbiddenAddressReason('127.0.0.1')!, /loopback/);
    assert.match(forbiddenAddressReason('169.254.169.254')!, /link-local.*metadata/);
    assert.match(forbiddenAddressReason('10.1.2.3')!, /private/);
    assert.match(forbiddenAddressReason('100.100.100.200')!, /carrier-grade/); // Alibaba metadata
    assert.match(forbiddenAddressReason('255.255.255.255')!, /broadcast/);
    assert.match(forbiddenAddressReason('239.1.1.1')!, /multicast/);
    assert.match(forbiddenAddressReason('::1')!, /loopback/);
    assert.match(forbiddenAddressReason('fd00:ec2::254')!, /unique local/); // AWS IPv6 metadata
    assert.match(forbiddenAddressReason('fe80::1')!, /link-local/);
    assert.match(forbiddenAddressReason('ff02::1')!, /multicast/);
    assert.equal(forbiddenAddressReason('93.184.216.34'), null);
  });

  test('IPv6: loopback, unspecified, ULA fc00::/7, link-local fe80::/10, multicast, outside 2000::/3', () => {
    for (const ip of [
      '::',
      '::1',
      'fc00::1',
      'fdff:ffff::1',
      'fe80::1',
      'febf::1',
      'fec0::1',
      'ff02::1',
      '::7f00:1',
      '4000::1',
      '1::1',
      'fe80::1%eth0',
    ]) {
      assert.equal(isForbiddenAddress(ip), true, ip);
    }
    for (const ip of ['2606:4700::1111', '2a00:1450:4001::200e', '2001:4860:4860::8888', '2fff::1']) {
      assert.equal(isForbiddenAddress(ip), false, ip);
    }
  });

  test('IPv6 addresses embedding IPv4 are judged by the embedded address', () => {
    for (const ip of [
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '0:0:0:0:0:ffff:a00:1',
      '64:ff9b::10.0.0.1',
      '2002:7f00:1::',
      '2002:a9fe:a9fe::1',
      '64:ff9b:1::8.8.8.8',
      '2001:0:4136:e378::1',
    ]) {
      assert.equal(isForbiddenAddress(ip), true, ip);
    }
    for (const ip of ['::ffff:8.8.8.8', '64:ff9b::8.8.8.8', '2002:0808:0808::1']) {
      assert.equal(isForbiddenAddress(ip), false, ip);
    }
  });

  test('text that is not a canonical address is forbidden (fail closed)', () => {
    for (const ip of ['', 'localhost', '0177.0.0.1', '2130706433', '127.1', 'example.com', '[::1]']) {
      assert.equal(isForbiddenAddress(ip), true, ip);
    }
  });

  test('agrees with node:net BlockList over 20,000 random IPv4 addresses', () => {
    const oracle = new BlockList();
    for (const [net, prefix] of [
      ['0.0.0.0', 8],
      ['10.0.0.0', 8],
      ['100.64.0.0', 10],
      ['127.0.0.0', 8],
      ['169.254.0.0', 16],
      ['172.16.0.0', 12],
      ['192.0.0.0', 24],
      ['192.0.2.0', 24],
      ['192.88.99.0', 24],
      ['192.168.0.0', 16],
      ['198.18.0.0', 15],
      ['198.51.100.0', 24],
      ['203.0.113.0', 24],
      ['224.0.0.0', 3],
    ] as const)
      oracle.addSubnet(net, prefix, 'ipv4');
    let seed = 42;
    const next = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed;
    };
    let forbidden = 0;
    for (let i = 0; i < 20_000; i++) {
      const n = next();
      // Half the samples inside 192.0.0.0/8 and 169-172/8, where the small blocks live.
      const first = i % 2 ? [192, 169, 172, 100, 198, 203][i % 6]! : n >>> 24;
      const ip = [first, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff].join('.');
      const expected = oracle.check(ip, 'ipv4');
      assert.equal(isForbiddenAddress(ip), expected, ip);
      if (expected) forbidden++;
    }
    assert.ok(forbidden > 1000, `the sample exercised the blocks (${forbidden})`);
  });
});
