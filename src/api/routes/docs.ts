/**
 * `GET /docs`: the API reference, rendered in the browser from `/openapi.json` by Swagger UI (the npm package
 * swagger-ui-dist, served from this process: no CDN, so it works offline and behind a strict firewall).
 * Everything the page loads comes from this origin; its Content-Security-Policy says so, and allows no inline
 * script (the start-up code is its own file).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import Type, { type Static } from 'typebox';

/**
 * Swagger UI writes inline `style` attributes and `<style>` elements, hence 'unsafe-inline' for styles only;
 * scripts, data and images come from this origin (and `data:` images the stylesheet embeds).
 */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · Eligibility service</title>
<link rel="icon" href="/portal/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="stylesheet" href="/docs/assets/docs.css">
<script src="/docs/assets/swagger-ui-bundle.js" defer></script>
<script src="/docs/assets/docs.js" defer></script>
</head>
<body>
<header class="docs-head"><a href="/portal">Eligibility portal</a> · API reference · <a href="/openapi.json">openapi.json</a> (OpenAPI 3.1)</header>
<main id="swagger-ui"><noscript>The API reference needs JavaScript; the document itself is at <a href="/openapi.json">/openapi.json</a>.</noscript></main>
</body>
</html>
`;

/** Start-up: the document of this origin; no validator badge (it would call validator.swagger.io). */
const START = `window.addEventListener('DOMContentLoaded', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    validatorUrl: null,
    deepLinking: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    tryItOutEnabled: false,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

const STYLE = `body { margin: 0; font-family: system-ui, sans-serif; }
.docs-head { padding: .6rem 1.25rem; background: #1f2a37; color: #e5e7eb; font-size: .9rem; }
.docs-head a { color: #fff; }
`;

interface Asset {
  type: string;
  body: Buffer;
  gzip?: Buffer;
}

/** The files of swagger-ui-dist this page serves (a fixed list: nothing else of node_modules is reachable). */
const DIST_FILES: Record<string, string> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
};

const AssetParams = Type.Object({ name: Type.String() });

export const docsRoute: FastifyPluginAsync = async (app) => {
  const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const assets = new Map<string, Asset>([
    ['docs.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(START) }],
    ['docs.css', { type: 'text/css; charset=utf-8', body: Buffer.from(STYLE) }],
  ]);
  for (const [name, type] of Object.entries(DIST_FILES)) {
    assets.set(name, { type, body: readFileSync(join(dist, name)) });
  }

  const secure = (reply: FastifyReply) =>
    reply.headers({
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    });

  app.get('/docs', { schema: { hide: true } }, async (_request, reply) =>
    secure(reply).header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(PAGE),
  );
  app.get<{ Params: Static<typeof AssetParams> }>(
    '/docs/assets/:name',
    { schema: { hide: true, params: AssetParams } },
    async (request, reply) => {
      const asset = assets.get(request.params.name);
      if (!asset) {
        return reply.code(404).send({ code: 'ResourceNotFoundException', message: 'No such asset.' });
      }
      secure(reply)
        .headers({ 'cache-control': 'public, max-age=3600', vary: 'accept-encoding' })
        .type(asset.type);
      if (!acceptsGzip(request)) return reply.send(asset.body);
      // Compressed once, on first use: the bundle is ~1.4 MB as is and ~0.4 MB gzipped.
      asset.gzip ??= gzipSync(asset.body);
      return reply.header('content-encoding', 'gzip').send(asset.gzip);
    },
  );
};

function acceptsGzip(request: FastifyRequest): boolean {
  return /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
}
