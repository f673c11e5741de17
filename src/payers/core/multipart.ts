/**
 * multipart/form-data both ways for CORE MIME. Writing is ours rather than undici's FormData because the
 * HTML form encoding rewrites every line break in a text field to CRLF, and the Payload must reach the
 * gateway as the very bytes of the 270. Reading goes through undici's `Response.formData()` (a spec
 * parser) on a body already read under the byte cap, so a hostile answer cannot make it buffer more.
 */
import { randomBytes } from 'node:crypto';
import { Response } from 'undici';

export interface EncodedForm {
  body: Buffer;
  contentType: string;
}

/** Text fields as form-data parts, in the order given, without filenames or per-part content types. */
export function encodeFormData(fields: readonly (readonly [string, string])[]): EncodedForm {
  let boundary: string;
  do boundary = `----core${randomBytes(16).toString('hex')}`;
  while (fields.some(([, value]) => value.includes(boundary)));
  const parts: string[] = [];
  for (const [name, value] of fields) {
    if (!/^[A-Za-z0-9_.-]+$/.test(name)) throw new Error('form field names are plain tokens');
    parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  }
  parts.push(`--${boundary}--\r\n`);
  return {
    body: Buffer.from(parts.join(''), 'utf8'),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

export class MultipartError extends Error {
  constructor(problem: string) {
    super(`Malformed multipart: ${problem}`);
    this.name = 'MultipartError';
  }
}

/** Every field of a multipart/form-data body; a field sent twice is refused (which one would count?). */
export async function decodeFormData(body: Buffer, contentType: string): Promise<Map<string, string>> {
  let form: Awaited<ReturnType<Response['formData']>>;
  try {
    form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw new MultipartError('not a readable multipart/form-data body');
  }
  const fields = new Map<string, string>();
  for (const [name, value] of form) {
    if (fields.has(name)) throw new MultipartError('a field appears twice');
    fields.set(name, typeof value === 'string' ? value : await value.text());
  }
  return fields;
}
