import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkWebhookUrl } from '../../src/webhooks/ssrf.ts';

const publicOnly = { allowPrivate: false };
const reasonFor = (url: string, options = publicOnly) => {
  const r = checkWebhookUrl(url, options);
  assert.equal(r.ok, false, `${url} should be refused`);
  return r.ok ? '' : r.reason;
};
const accepted = (url: string, options = publicOnly) => {
  const r = checkWebhookUrl(url, options);
  assert.ok(r.ok, `${url} should be accepted: ${r.ok ? '' : r.reason}`);
  return r.url;
};

describe('checkWebhookUrl: schemes and credentials', () => {
  test('https only; http is refused with the reason (encryption), other schemes named', () => {
    assert.match(reasonFor('http://example.com/hook'), /https:\/\/.*encrypted/);
    assert.match(reasonFor('ftp://example.com/hook'), /not ftp:/);
    assert.match(reasonFor('javascript:alert(1)'), /https:\/\//);
    assert.match(reasonFor('file:///etc/passwd'), /https:\/\//);
  });

  test('credentials in the URL are refused, even empty-looking ones', () => {
    assert.match(reasonFor('https://user:pass@example.com/hook'), /Credentials/);
    assert.match(reasonFor('https://user@example.com/hook'), /Credentials/);
    assert.match(reasonFor('https://:pass@example.com/hook'), /Credentials/);
  });

  test('not a URL, or too long', () => {
    assert.match(reasonFor('not a url'), /not a valid URL/);
    assert.match(reasonFor('example.com/hook'), /not a valid URL/);
    assert.match(reasonFor(`https://example.com/${'a'.repeat(2100)}`), /longer than 2048/);
  });
});

describe('checkWebhookUrl: ports (default 443, or 1024-65535)', () => {
  test('the default port and high ports are accepted; 443 written out is the default', () => {
    assert.equal(accepted('https://example.com:443/hook').port, '');
    assert.equal(accepted('https://example.com:1024/hook').port, '1024');
    assert.equal(accepted('https://example.com:8443/hook').port, '8443');
    assert.equal(accepted('https://example.com:65535/hook').port, '65535');
  });

  test('low ports belong to other services and are refused with the rule stated', () => {
    for (const port of [0, 22, 25, 80, 1023]) {
      assert.match(
        reasonFor(`https://example.com:${port}/hook`),
        new RegExp(`Port ${port} is not allowed.*443.*1024`),
      );
    }
    assert.match(reasonFor('https://example.com:65536/hook'), /not a valid URL/);
  });
});

describe('checkWebhookUrl: hostnames', () => {
  test('localhost, *.localhost and single labels are internal', () => {
    assert.match(reasonFor('https://localhost/hook'), /internal hostname/);
    assert.match(reasonFor('https://LOCALHOST/hook'), /internal hostname/);
    assert.match(reasonFor('https://api.localhost/hook'), /\.localhost are internal/);
    assert.match(reasonFor('https://intranet/hook'), /internal hostname/);
  });

  test('reserved and private-use suffixes are internal', () => {
    for (const host of [
      'printer.local',
      'metadata.google.internal',
      'box.localdomain',
      'router.home.arpa',
      '1.0.0.127.in-addr.arpa',
      'x.test',
      'x.invalid',
      'x.onion',
      'nas.lan',
      'dc.corp',
      'x.home',
    ]) {
      assert.match(reasonFor(`https://${host}/hook`), /internal and cannot receive/, host);
    }
  });

  test('trailing-dot hostnames are refused (they dodge suffix checks and certificate names)', () => {
    assert.match(reasonFor('https://localhost./hook'), /trailing dot/);
    assert.match(reasonFor('https://localhost../hook'), /trailing dot/);
    assert.match(reasonFor('https://example.com./hook'), /trailing dot/);
    assert.match(reasonFor('https://metadata.google.internal./x'), /trailing dot/);
  });

  test('malformed hostnames: empty or overlong labels', () => {
    assert.match(reasonFor('https://a..example.com/hook'), /not valid/);
    assert.match(reasonFor(`https://${'a'.repeat(64)}.example.com/hook`), /not valid/);
  });

  test('literal addresses name the address and what kind it is', () => {
    assert.match(reasonFor('https://127.0.0.1/hook'), /127\.0\.0\.1, a loopback address/);
    assert.match(
      reasonFor('https://169.254.169.254/latest/meta-data'),
      /169\.254\.169\.254, a link-local address/,
    );
    assert.match(reasonFor('https://[::1]/hook'), /::1, a loopback address/);
    // The decimal spelling is reported as the address it really is.
    assert.match(reasonFor('https://2130706433/hook'), /127\.0\.0\.1/);
  });
});

describe('checkWebhookUrl: accepted URLs are normalized', () => {
  test('fragment dropped, host lowercased, IDN in punycode, query kept', () => {
    assert.equal(
      accepted('https://Hooks.Example.COM/a/b?c=d#frag').href,
      'https://hooks.example.com/a/b?c=d',
    );
    assert.equal(accepted('https://bücher.example/hook').hostname, 'xn--bcher-kva.example');
  });
});

describe('checkWebhookUrl with allowPrivate (local development)', () => {
  const dev = { allowPrivate: true };
  test('http, loopback, localhost, private addresses and any port are allowed', () => {
    for (const url of [
      'http://127.0.0.1:9999/hook',
      'http://localhost:3000/hook',
      'https://10.0.0.5/hook',
      'http://[::1]:80/x',
      'http://receiver/hook',
    ]) {
      accepted(url, dev);
    }
  });
  test('other schemes and credentials are still refused', () => {
    assert.match(reasonFor('ftp://127.0.0.1/hook', dev), /https:\/\//);
    assert.match(reasonFor('http://u:p@127.0.0.1/hook', dev), /Credentials/);
  });
});
