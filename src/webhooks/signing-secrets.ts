/**
 * Webhook signing secrets and their encryption at rest.
 *
 * - Generated secrets: `whsec_` + 32 random bytes in base64url without padding (43 characters), so 49
 *   characters in all. The prefix makes a leaked secret recognizable to secret scanners and people.
 * - Typed-in secrets: 24 to 256 characters of printable ASCII without spaces. Spaces are refused because
 *   copy-paste adds or drops them invisibly, and a receiver that trims would compute another signature.
 * - At rest: AES-256-GCM with a random 96-bit IV per seal and a 128-bit tag, written as
 *   `v1:` + base64url(iv ‖ tag ‖ ciphertext). The version prefix lets a later format coexist. Opening tries
 *   the current key, then older keys (key rotation: re-seal with the current key when convenient); GCM's
 *   tag makes a wrong key or a flipped bit fail instead of returning garbage.
 *
 * Errors never include key material, plaintext or sealed text.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const GENERATED_SECRET_PREFIX = 'whsec_';
const MIN_SECRET_LENGTH = 24;
const MAX_SECRET_LENGTH = 256;

export function generateWebhookSecret(): string {
  return `${GENERATED_SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** Validates a typed-in secret; the reason is shown to the person typing it. */
export function validateWebhookSecret(secret: string): { ok: true } | { ok: false; reason: string } {
  if (secret.length < MIN_SECRET_LENGTH) {
    return { ok: false, reason: `A signing secret needs at least ${MIN_SECRET_LENGTH} characters.` };
  }
  if (secret.length > MAX_SECRET_LENGTH) {
    return { ok: false, reason: `A signing secret can have at most ${MAX_SECRET_LENGTH} characters.` };
  }
  if (!/^[\x21-\x7e]+$/.test(secret)) {
    return {
      ok: false,
      reason:
        'A signing secret may contain only printable ASCII characters (letters, digits, symbols), no spaces.',
    };
  }
  return { ok: true };
}

export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

export class SecretBoxError extends Error {
  override name = 'SecretBoxError';
}

/** Key material: 32 bytes, as bytes, 64 hex digits, or base64/base64url (43 characters, optional `=`). */
export type KeyMaterial = Uint8Array | string;

const VERSION = 'v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEX_KEY = /^[0-9a-fA-F]{64}$/;
const BASE64_KEY = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=?$/;
const BASE64URL_KEY = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]=?$/;
const SEALED_BODY = /^[A-Za-z0-9_-]+$/;

export function parseKeyMaterial(material: KeyMaterial): Buffer {
  let key: Buffer;
  if (material instanceof Uint8Array) key = Buffer.from(material);
  else if (typeof material !== 'string')
    throw new SecretBoxError('the secret-box key must be bytes or a string');
  else if (HEX_KEY.test(material)) key = Buffer.from(material, 'hex');
  else if (BASE64_KEY.test(material)) key = Buffer.from(material, 'base64');
  else if (BASE64URL_KEY.test(material)) key = Buffer.from(material, 'base64url');
  else {
    throw new SecretBoxError(
      'the secret-box key must be 32 bytes, given as 64 hex digits or 44 base64 characters',
    );
  }
  if (key.length !== 32) throw new SecretBoxError(`the secret-box key must be 32 bytes, not ${key.length}`);
  return key;
}

/** `oldKeys` only open (key rotation); sealing always uses `keyMaterial`. */
export function createSecretBox(keyMaterial: KeyMaterial, oldKeys: readonly KeyMaterial[] = []): SecretBox {
  const key = parseKeyMaterial(keyMaterial);
  const keys = [key, ...oldKeys.map(parseKeyMaterial)];
  return {
    seal(plaintext) {
      if (typeof plaintext !== 'string') throw new SecretBoxError('only strings can be sealed');
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return `${VERSION}${Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64url')}`;
    },
    open(sealed) {
      if (typeof sealed !== 'string' || !sealed.startsWith(VERSION)) {
        throw new SecretBoxError('unknown sealed-secret format (expected a v1: prefix)');
      }
      const body = sealed.slice(VERSION.length);
      if (!SEALED_BODY.test(body)) throw new SecretBoxError('sealed secret is not base64url');
      const raw = Buffer.from(body, 'base64url');
      if (raw.length < IV_BYTES + TAG_BYTES) throw new SecretBoxError('sealed secret too short');
      const iv = raw.subarray(0, IV_BYTES);
      const tag = raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES);
      const data = raw.subarray(IV_BYTES + TAG_BYTES);
      for (const k of keys) {
        try {
          const decipher = createDecipheriv('aes-256-gcm', k, iv, { authTagLength: TAG_BYTES });
          decipher.setAuthTag(tag);
          return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
        } catch {
          // Authentication failed with this key: try the next (older) one.
        }
      }
      throw new SecretBoxError('sealed secret could not be opened (wrong key or tampered)');
    },
  };
}
