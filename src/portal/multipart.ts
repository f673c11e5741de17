/**
 * `multipart/form-data` for the portal's one file upload (a batch schedule CSV), without a dependency, read
 * as the body arrives (issue 26 item 1): each chunk the socket delivers is parsed in its own turn of the event
 * loop (delimiters found with the native `Buffer.indexOf`, each part's bytes decoded as UTF-8 by a streaming
 * TextDecoder), so no step handles more than one chunk, the body is never held as a whole, and nothing is
 * copied into one buffer first. The route's `bodyLimit` is enforced here (413 beyond, from the announced
 * length at once or while counting), as Fastify does for the parsers it buffers itself.
 *
 * The result is a plain form object like @fastify/formbody's, so the CSRF guard reads `_csrf` from it as
 * from any other form; a file field becomes its text (UTF-8) and its name goes in `<field>.filename`.
 */
import type { IncomingMessage } from 'node:http';
import { errorCodes, type FastifyInstance } from 'fastify';

/** A body that is not valid multipart: a 400, which the portal's error handler answers with a page. */
class MultipartError extends Error {
  readonly statusCode = 400;
}

export type MultipartForm = Record<string, string | string[]>;

/** A part's header block longer than this is refused (browsers send a few hundred bytes). */
const MAX_HEADER_BYTES = 16 * 1024;
/** Parts in one form; the portal's forms have five at most. */
const MAX_PARTS = 50;
const CRLF = Buffer.from('\r\n');
const HEADERS_END = Buffer.from('\r\n\r\n');

/** The boundary parameter of a multipart/form-data content type (RFC 2046: 1–70 characters). */
function boundaryOf(contentType: string): string {
  const [type, ...params] = contentType.split(';');
  if (type?.trim().toLowerCase() === 'multipart/form-data') {
    for (const param of params) {
      const eq = param.indexOf('=');
      if (param.slice(0, eq).trim().toLowerCase() !== 'boundary') continue;
      const value = param
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1');
      if (/^[0-9A-Za-z'()+_,\-./:=? ]{1,70}$/.test(value)) return value;
    }
  }
  throw new MultipartError('the form has no valid multipart boundary');
}

/** The `name` and `filename` of a part's Content-Disposition (browsers escape `"` as %22). */
function dispositionOf(headers: string): { name: string; filename?: string } {
  const line = headers.split('\r\n').find((l) => /^content-disposition\s*:/i.test(l));
  const name = line && /;\s*name="([^"]*)"/i.exec(line)?.[1];
  if (name === undefined) throw new MultipartError('a part of the form has no name');
  const filename = /;\s*filename="([^"]*)"/i.exec(line ?? '')?.[1];
  return filename === undefined ? { name } : { name, filename };
}

interface Part {
  name: string;
  filename?: string;
  decoder: TextDecoder;
  /** The part's text so far, decoded a chunk at a time; joined once, when the part ends. */
  pieces: string[];
}

/**
 * A multipart/form-data body read chunk by chunk: `write` each chunk as it arrives, then `end`. The body is
 * read as if it began with CRLF, so the first delimiter is found like every other (`CRLF--boundary`); the
 * few bytes kept between chunks are a possible start of a delimiter, never more.
 */
export class MultipartFormReader {
  private readonly delimiter: Buffer;
  private state: 'preamble' | 'after-delimiter' | 'headers' | 'body' | 'done' = 'preamble';
  private pending: Buffer = CRLF;
  private part: Part | undefined;
  private parts = 0;
  private readonly form: MultipartForm = {};

  constructor(contentType: string) {
    this.delimiter = Buffer.from(`\r\n--${boundaryOf(contentType)}`);
  }

  write(chunk: Buffer): void {
    let buf = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    for (;;) {
      const rest = this.step(buf);
      if (rest === undefined) return;
      buf = rest;
    }
  }

  /** The form, once the body has ended; a body cut short, or without its closing delimiter, is refused. */
  end(): MultipartForm {
    if (this.state !== 'done') throw new MultipartError('the form ended before its closing boundary');
    return this.form;
  }

  /** One step over `buf`: the bytes left for the next step, or undefined when `buf` is used up (or kept). */
  private step(buf: Buffer): Buffer | undefined {
    switch (this.state) {
      case 'done':
        return undefined; // the epilogue, ignored
      case 'preamble':
      case 'body':
        return this.untilDelimiter(buf);
      case 'after-delimiter':
        return this.afterDelimiter(buf);
      case 'headers':
        return this.headers(buf);
    }
  }

  private keep(buf: Buffer): undefined {
    // A copy: a view would hold on to the whole chunk it came from.
    this.pending = Buffer.from(buf);
    return undefined;
  }

  /** Part data (or preamble) up to the next delimiter; at most a delimiter's length is kept back. */
  private untilDelimiter(buf: Buffer): Buffer | undefined {
    const at = buf.indexOf(this.delimiter);
    if (at < 0) {
      const safe = Math.max(0, buf.length - (this.delimiter.length - 1));
      this.data(buf.subarray(0, safe));
      return this.keep(buf.subarray(safe));
    }
    this.data(buf.subarray(0, at));
    this.finishPart();
    this.state = 'after-delimiter';
    return buf.subarray(at + this.delimiter.length);
  }

  /** `--` closes the form; otherwise optional white space and CRLF open the next part's headers. */
  private afterDelimiter(buf: Buffer): Buffer | undefined {
    if (buf.length < 2) return this.keep(buf);
    if (buf[0] === 0x2d && buf[1] === 0x2d) {
      this.state = 'done';
      this.pending = Buffer.alloc(0);
      return undefined;
    }
    const eol = buf.indexOf(CRLF);
    if (eol < 0) {
      if (buf.length > 64) throw new MultipartError('a multipart boundary is followed by garbage');
      return this.keep(buf);
    }
    if (!/^[ \t]*$/.test(buf.toString('latin1', 0, eol))) {
      throw new MultipartError('a multipart boundary is followed by garbage');
    }
    if (++this.parts > MAX_PARTS) throw new MultipartError('the form has too many parts');
    this.state = 'headers';
    return buf.subarray(eol + 2);
  }

  /** A part's header block, up to the blank line; the part's name and filename are read from it. */
  private headers(buf: Buffer): Buffer | undefined {
    const end = buf.indexOf(HEADERS_END);
    // The blank line right after the delimiter's CRLF: a part without headers.
    const bare = buf.length >= 2 && buf[0] === 0x0d && buf[1] === 0x0a;
    if (end < 0 && !bare) {
      if (buf.length > MAX_HEADER_BYTES) throw new MultipartError('a part of the form has too long a header');
      return this.keep(buf);
    }
    if (bare) throw new MultipartError('a part of the form has no name');
    if (end > MAX_HEADER_BYTES) throw new MultipartError('a part of the form has too long a header');
    const { name, filename } = dispositionOf(buf.toString('utf8', 0, end));
    this.part = { name, filename, decoder: new TextDecoder('utf-8'), pieces: [] };
    this.state = 'body';
    return buf.subarray(end + HEADERS_END.length);
  }

  private data(bytes: Buffer): void {
    if (this.state === 'body' && this.part && bytes.length) {
      this.part.pieces.push(this.part.decoder.decode(bytes, { stream: true }));
    }
  }

  private finishPart(): void {
    const part = this.part;
    this.part = undefined;
    if (this.state !== 'body' || !part) return;
    part.pieces.push(part.decoder.decode());
    this.add(part.name, part.pieces.join(''));
    if (part.filename !== undefined) this.add(`${part.name}.filename`, part.filename);
  }

  private add(name: string, value: string): void {
    const prior = this.form[name];
    this.form[name] = prior === undefined ? value : Array.isArray(prior) ? [...prior, value] : [prior, value];
  }
}

/** A whole body at once (tests, and callers that already hold it). */
export function parseMultipartForm(contentType: string, body: Buffer): MultipartForm {
  const reader = new MultipartFormReader(contentType);
  reader.write(body);
  return reader.end();
}

/**
 * Reads the request's body through a MultipartFormReader as it arrives, within `limit` bytes. On a refusal
 * the body is left unread (not destroyed), so the app's 413 handling can drain it and the client reads the
 * answer (src/api/connection-limits.ts).
 */
function readMultipart(
  payload: IncomingMessage,
  contentType: string,
  limit: number,
  done: (err: Error | null, form?: MultipartForm) => void,
): void {
  if (Number(payload.headers['content-length'] ?? 0) > limit) {
    done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
    return;
  }
  let reader: MultipartFormReader;
  try {
    reader = new MultipartFormReader(contentType);
  } catch (err) {
    done(err as Error);
    return;
  }
  let received = 0;
  const stop = (err: Error | null, form?: MultipartForm) => {
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onError);
    done(err, form);
  };
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    if (received > limit) return stop(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
    try {
      reader.write(chunk);
    } catch (err) {
      stop(err as Error);
    }
  };
  const onEnd = () => {
    try {
      stop(null, reader.end());
    } catch (err) {
      stop(err as Error);
    }
  };
  const onError = (err: Error) => stop(err);
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onError);
}

/** Registers the parser on the portal's scope only (the JSON API never accepts multipart). */
export function acceptMultipartForms(portal: FastifyInstance): void {
  portal.addContentTypeParser('multipart/form-data', (request, payload, done) => {
    const limit = request.routeOptions.bodyLimit ?? portal.initialConfig.bodyLimit ?? 1024 * 1024;
    readMultipart(
      payload,
      String(request.headers['content-type']),
      limit,
      done as (err: Error | null, form?: MultipartForm) => void,
    );
  });
}
