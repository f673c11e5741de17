/**
 * Cookies and form tokens. Signed-in forms carry the session's CSRF token (stored with the session).
 * Forms shown before sign-in carry an HMAC of a random "form cookie" (double submit, bound with the token
 * key), so a foreign site can neither sign someone in to an account of its choosing nor post as them.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomBase62 } from '../ids.ts';

export interface CookieNames {
  session: string;
  form: string;
}

/** `__Host-` cookies are only accepted over HTTPS, with Path=/ and no Domain: nothing else can set them. */
export function cookieNames(secure: boolean): CookieNames {
  return secure
    ? { session: '__Host-elig_session', form: '__Host-elig_form' }
    : { session: 'elig_session', form: 'elig_form' };
}

export function cookieOptions(secure: boolean): CookieSerializeOptions {
  return { path: '/', httpOnly: true, sameSite: 'lax', secure };
}

export function tokensEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function formToken(tokenKey: Buffer, cookieValue: string): string {
  return createHmac('sha256', tokenKey).update(`form:${cookieValue}`).digest('base64url');
}

/** The token for a pre-sign-in form; sets the form cookie when the browser has none yet. */
export function issueFormToken(
  request: FastifyRequest,
  reply: FastifyReply,
  tokenKey: Buffer,
  secure: boolean,
): string {
  const name = cookieNames(secure).form;
  let value = request.cookies[name];
  if (!value || !/^[0-9A-Za-z]{32}$/.test(value)) {
    value = randomBase62(32);
    reply.setCookie(name, value, cookieOptions(secure));
  }
  return formToken(tokenKey, value);
}

export function formTokenValid(
  request: FastifyRequest,
  tokenKey: Buffer,
  secure: boolean,
  presented: string,
): boolean {
  const value = request.cookies[cookieNames(secure).form];
  return Boolean(value && presented && tokensEqual(formToken(tokenKey, value), presented));
}
