/**
 * CORE gateways that authenticate with an X.509 client certificate instead of a password: the fake runs
 * HTTPS, requires a client certificate from its CA, and records the certificate's CN.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TransientPayerError } from '../../src/payers/connector.ts';
import type { CoreKind } from './core-contract.ts';
import { makeCertificates, type TestCertificates } from './fakes/certs.ts';
import type { CoreFake, CoreFakeOptions } from './fakes/core-common.ts';
import { deps, failsWith, inquiry, ref, SECRETS } from './gateway-helpers.ts';

const never = () => new AbortController().signal;

export function describeClientCertificates(kind: CoreKind, fakeOptions: CoreFakeOptions): void {
  describe('X.509 client certificate instead of a password', () => {
    let certs: TestCertificates;
    let tlsFake: CoreFake;
    const certDeps = () => {
      SECRETS.CLIENT_CERT = certs.client.cert;
      SECRETS.CLIENT_KEY = certs.client.key;
      SECRETS.STRANGER_CERT = certs.stranger.cert;
      SECRETS.STRANGER_KEY = certs.stranger.key;
      return deps({ ca: certs.ca });
    };
    before(async () => {
      certs = makeCertificates();
      tlsFake = await kind.start({
        ...fakeOptions,
        username: undefined,
        password: undefined,
        tls: { ...certs.server, ca: certs.ca },
      });
    });
    after(() => tlsFake.close());

    test('the gateway sees our certificate; no credentials travel in the message', async () => {
      const c = kind.create(
        {
          type: kind.type,
          url: tlsFake.url,
          clientCert: ref('CLIENT_CERT'),
          clientKey: ref('CLIENT_KEY'),
        } as never,
        certDeps(),
      );
      try {
        const x12 = await c.send(inquiry(), { signal: never() });
        const seen = tlsFake.requests.at(-1)!;
        assert.equal(x12, tlsFake.answers.at(-1));
        assert.deepEqual(seen.problems, []);
        assert.equal(seen.clientCertificate, 'eligsvc-client');
        assert.equal(seen.fields.UserName, undefined);
      } finally {
        await c.close();
      }
    });

    test('a certificate the gateway does not trust fails the connection (transient)', async () => {
      const c = kind.create(
        {
          type: kind.type,
          url: tlsFake.url,
          clientCert: ref('STRANGER_CERT'),
          clientKey: ref('STRANGER_KEY'),
        } as never,
        certDeps(),
      );
      try {
        await failsWith(
          c.send(inquiry(), { signal: AbortSignal.timeout(5_000) }),
          TransientPayerError,
          /connection/,
        );
      } finally {
        await c.close();
      }
    });
  });
}
