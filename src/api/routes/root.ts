/**
 * `GET /`: a browser (it asks for text/html) is sent to the portal; any other client gets a small JSON
 * map of where things are, pointing at the OpenAPI description and the API reference page.
 */
import type { FastifyPluginAsync } from 'fastify';

export const ROOT_LINKS = {
  service: 'eligibility',
  portal: '/portal',
  api: '/api/eligibility',
  payers: '/api/payers',
  openapi: '/openapi.json',
  docs: '/docs',
  health: '/healthz',
} as const;

export const rootRoute: FastifyPluginAsync = async (app) => {
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    if ((request.headers.accept ?? '').includes('text/html')) {
      return reply.code(303).header('location', '/portal').send();
    }
    return ROOT_LINKS;
  });
};
