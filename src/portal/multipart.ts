/**
 * `multipart/form-data` for the portal's one file upload (a batch schedule CSV), without a dependency: the
 * body is read up to the route's `bodyLimit` (Fastify enforces it, 413 beyond) and parsed by the multipart
 * reader Node already ships (undici's `Response.formData()`). The result is a plain form object like
 * @fastify/formbody's, so the CSRF guard reads `_csrf` from it as from any other form; a file field becomes
 * its text (UTF-8) and its name goes in `<field>.filename`.
 */
import type { FastifyInstance } from 'fastify';

/** A body that is not valid multipart: a 400, which the portal's error handler answers with a page. */
class MultipartError extends Error {
  readonly statusCode = 400;
}

export async function parseMultipartForm(
  contentType: string,
  body: Buffer,
): Promise<Record<string, string | string[]>> {
  let data: FormData;
  try {
    // A view of the same bytes: Uint8Array.from would copy them one by one.
    data = await new Response(new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.byteLength), {
      headers: { 'content-type': contentType },
    }).formData();
  } catch {
    throw new MultipartError('the form could not be read as multipart/form-data');
  }
  const form: Record<string, string | string[]> = {};
  const add = (name: string, value: string) => {
    const prior = form[name];
    form[name] = prior === undefined ? value : Array.isArray(prior) ? [...prior, value] : [prior, value];
  };
  for (const [name, value] of data) {
    if (typeof value === 'string') add(name, value);
    else {
      add(name, await value.text());
      add(`${name}.filename`, value.name);
    }
  }
  return form;
}

/** Registers the parser on the portal's scope only (the JSON API never accepts multipart). */
export function acceptMultipartForms(portal: FastifyInstance): void {
  portal.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, (request, body, done) => {
    parseMultipartForm(String(request.headers['content-type']), body as Buffer).then(
      (form) => done(null, form),
      (err: Error) => done(err, undefined),
    );
  });
}
