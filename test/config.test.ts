import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.ts';

test('defaults', () => {
  const c = loadConfig({});
  assert.equal(c.port, 8080);
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.dataDir, './data');
  assert.equal(c.databaseUrl, undefined);
  assert.equal(c.allowPrivateWebhooks, false);
  assert.equal(c.env, 'development');
});

test('bad values stop start-up with every problem named', () => {
  assert.throws(
    () => loadConfig({ PORT: 'abc', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud' }),
    (err: Error) =>
      err instanceof ConfigError &&
      /PORT/.test(err.message) &&
      /DATABASE_URL/.test(err.message) &&
      /LOG_LEVEL/.test(err.message),
  );
});

test('production requires the master secret and refuses private webhooks', () => {
  assert.throws(() => loadConfig({ ELIG_ENV: 'production' }), /ELIG_SECRET_KEY is required/);
  assert.throws(
    () =>
      loadConfig({
        ELIG_ENV: 'production',
        ELIG_SECRET_KEY: 'x'.repeat(40),
        ELIG_ALLOW_PRIVATE_WEBHOOKS: '1',
      }),
    /cannot be enabled in production/,
  );
});

test('the lease must outlive a payer call', () => {
  assert.throws(() => loadConfig({ PAYER_TIMEOUT_MS: '5000', LEASE_MS: '4000' }), /LEASE_MS/);
});

test('TRUSTED_PROXIES: addresses, CIDR ranges and range names, comma-separated; unset trusts none', () => {
  assert.deepEqual(loadConfig({}).trustedProxies, []);
  assert.deepEqual(
    loadConfig({ TRUSTED_PROXIES: ' 10.0.0.0/8, 192.168.1.10 ,,fd00::/8,loopback' }).trustedProxies,
    ['10.0.0.0/8', '192.168.1.10', 'fd00::/8', 'loopback'],
  );
  for (const bad of ['10.0.0.0/33', 'lb.internal', '10.0.0.1/8/1', '::1/129', '10.0.0.0/']) {
    assert.throws(() => loadConfig({ TRUSTED_PROXIES: `10.0.0.1,${bad}` }), /TRUSTED_PROXIES entry/, bad);
  }
});
