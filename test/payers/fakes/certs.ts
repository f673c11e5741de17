/**
 * A throwaway CA, a server certificate for 127.0.0.1 and a client certificate, made with the openssl
 * command line in a temporary directory (tests of X.509 client authentication against the fakes).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificates {
  ca: string;
  server: { key: string; cert: string };
  client: { key: string; cert: string };
  /** A client certificate from another CA, which the fake must refuse. */
  stranger: { key: string; cert: string };
}

export function makeCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'elig-certs-'));
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  try {
    const selfSigned = (name: string, cn: string) =>
      openssl(
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '2',
        '-subj',
        `/CN=${cn}`,
        '-keyout',
        file(`${name}.key`),
        '-out',
        file(`${name}.crt`),
      );
    const signed = (name: string, cn: string, ext?: string) => {
      openssl(
        'req',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-subj',
        `/CN=${cn}`,
        '-keyout',
        file(`${name}.key`),
        '-out',
        file(`${name}.csr`),
      );
      const extArgs = ext ? ['-extfile', file(`${name}.ext`)] : [];
      if (ext) writeFileSync(file(`${name}.ext`), ext);
      openssl(
        'x509',
        '-req',
        '-in',
        file(`${name}.csr`),
        '-CA',
        file('ca.crt'),
        '-CAkey',
        file('ca.key'),
        '-CAcreateserial',
        '-days',
        '2',
        '-out',
        file(`${name}.crt`),
        ...extArgs,
      );
    };
    selfSigned('ca', 'Elig Test CA');
    signed('server', '127.0.0.1', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
    signed('client', 'eligsvc-client', 'extendedKeyUsage=clientAuth\n');
    selfSigned('stranger', 'stranger-client');
    const read = (name: string) => ({
      key: readFileSync(file(`${name}.key`), 'utf8'),
      cert: readFileSync(file(`${name}.crt`), 'utf8'),
    });
    return {
      ca: readFileSync(file('ca.crt'), 'utf8'),
      server: read('server'),
      client: read('client'),
      stranger: read('stranger'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
