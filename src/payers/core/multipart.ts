/**
 * multipart/form-data both ways for CORE MIME. Writing is ours rather than undici's FormData because the
 * HTML form encoding rewrites every line break in a text field to CRLF, and the Payload must reach the
 * gateway as the very bytes of the 270. Reading works on a body already read under the byte cap.
 */
import { randomBytes } from 'node:crypto';
import { charsetOf, decodeText } from '../charset.ts';

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

const MAX_PARTS = 64;
const MAX_PART_HEADER_BYTES = 8 * 1024;
const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

/** The boundary parameter of a multipart/form-data content type (RFC 2046: 1–70 characters). */
function boundaryOf(contentType: string): string {
  const [type, ...params] = contentType.split(';');
  if (type?.trim().toLowerCase() !== 'multipart/form-data')
    throw new MultipartError('not multipart/form-data');
  for (const param of params) {
    const m = /^\s*boundary=(?:"([^"]{1,70})"|([0-9A-Za-z'()+_,./:=?-]{1,70}))\s*$/i.exec(param);
    if (m) return (m[1] ?? m[2])!;
  }
  throw new MultipartError('no usable boundary parameter');
}

/**
 * Every field of a multipart/form-data body (RFC 7578), read strictly: each part needs
 * `Content-Disposition: form-data; name="…"`, transfer encodings other than 7bit/8bit/binary are refused,
 * a field sent twice is refused (which one would count?), and parts and header sizes are bounded. Values
 * are text in the part's `Content-Type` charset, else the `_charset_` field's (RFC 7578 §4.6), else UTF-8;
 * an unknown charset throws UnknownCharsetError. undici's `Response.formData()` reads the same format but
 * costs several times a whole CORE answer's parse, so the connector uses this one.
 */
export function decodeFormData(body: Buffer, contentType: string): Map<string, string> {
  const delimiter = Buffer.from(`--${boundaryOf(contentType)}`);
  const fields = new Map<string, string>();
  const values: { name: string; charset: string | undefined; bytes: Buffer }[] = [];
  const next = Buffer.concat([CRLF, delimiter]);
  // The first delimiter may follow a preamble, always at the start of a line.
  let at = 0;
  if (!body.subarray(0, delimiter.length).equals(delimiter)) {
    const found = body.indexOf(next);
    if (found < 0) throw new MultipartError('no boundary delimiter');
    at = found + CRLF.length;
  }
  for (;;) {
    at += delimiter.length;
    if (body[at] === 0x2d && body[at + 1] === 0x2d) break; // `--`: the closing delimiter; the epilogue is ignored.
    // Transport padding (spaces, tabs) may follow a delimiter before its CRLF.
    while (body[at] === 0x20 || body[at] === 0x09) at++;
    if (body[at] !== 0x0d || body[at + 1] !== 0x0a)
      throw new MultipartError('a delimiter is not followed by CRLF');
    at += 2;
    if (fields.size >= MAX_PARTS) throw new MultipartError('too many parts');
    const headerEnd = body.indexOf(HEADER_END, at);
    if (headerEnd < 0 || headerEnd - at > MAX_PART_HEADER_BYTES)
      throw new MultipartError('unterminated part headers');
    const { name, charset } = partHeaders(body.toString('latin1', at, headerEnd));
    const valueStart = headerEnd + HEADER_END.length;
    const valueEnd = body.indexOf(next, valueStart);
    if (valueEnd < 0) throw new MultipartError('the body ends inside a part');
    if (fields.has(name)) throw new MultipartError('a field appears twice');
    values.push({ name, charset, bytes: body.subarray(valueStart, valueEnd) });
    fields.set(name, '');
    at = valueEnd + CRLF.length;
  }
  const fallback = fields.has('_charset_')
    ? values
        .find((v) => v.name === '_charset_')!
        .bytes.toString('latin1')
        .trim()
    : undefined;
  for (const v of values) {
    const charset = v.charset ?? fallback;
    fields.set(v.name, charset ? decodeText(v.bytes, charset) : v.bytes.toString('utf8'));
  }
  return fields;
}

/** The field name from a part's headers, which must say `form-data`, and the charset its Content-Type names. */
function partHeaders(headers: string): { name: string; charset: string | undefined } {
  let name: string | undefined;
  let charset: string | undefined;
  for (const line of headers.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new MultipartError('a part header without a name');
    const header = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (header === 'content-disposition') {
      if (!/^form-data\s*(;|$)/i.test(value)) throw new MultipartError('a part that is not form-data');
      const m = /;\s*name="([^"]*)"|;\s*name=([^\s;"]+)/i.exec(value);
      if (!m) throw new MultipartError('a part without a name');
      name = m[1] ?? m[2];
    } else if (header === 'content-type') {
      charset = charsetOf(value);
    } else if (header === 'content-transfer-encoding' && !/^(7bit|8bit|binary)$/i.test(value)) {
      throw new MultipartError('an unsupported transfer encoding');
    }
  }
  if (name === undefined) throw new MultipartError('a part without Content-Disposition');
  return { name, charset };
}
