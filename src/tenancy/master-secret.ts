/**
 * Keys derived from the one master secret (ELIG_SECRET_KEY) with HKDF, one per purpose, so that a leak of
 * one derived key does not expose the others.
 */
import { hkdfSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBase62 } from '../ids.ts';

export interface ServiceKeys {
  /** Pepper of the API key hashes. */
  apiKeyPepper: Buffer;
  /** AES-256-GCM key for webhook signing secrets at rest. */
  secretBoxKey: Buffer;
  /** HMAC key for session and one-time tokens. */
  tokenKey: Buffer;
  /** HMAC key of the sign-in throttle's account and address keys. */
  signInThrottleKey: Buffer;
  /** HMAC key of the patient identity hashes of checks (src/checks/patient-identity.ts). */
  patientIdentityKey: Buffer;
}

export function deriveServiceKeys(master: string): ServiceKeys {
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', master, 'eligibility-service', info, 32));
  return {
    apiKeyPepper: derive('api-key-pepper'),
    secretBoxKey: derive('webhook-secret-box'),
    tokenKey: derive('portal-tokens'),
    signInThrottleKey: derive('sign-in-throttle'),
    patientIdentityKey: derive('patient-identity'),
  };
}

/** Outside production a missing master secret is generated once and kept beside the data. */
export function loadOrCreateMasterSecret(dataDir: string): string {
  const path = join(dataDir, 'secret.key');
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secret = randomBase62(48);
  writeFileSync(path, secret, { mode: 0o600, flag: 'wx' });
  return secret;
}
