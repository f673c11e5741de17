/**
 * /portal/payers?q=: suggestions for the payer field of "Run a check" as someone types (portal.js), ranked
 * as GET /api/payers ranks (typos, abbreviations, states). Signed in only, like every portal page; ids and
 * names only. The form works without it: the field takes an id, and its datalist lists every payer.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { PortalDeps } from '../context.ts';
import { queryValue } from '../forms.ts';

/** Suggestions shown at once: enough to pick from, few enough to read. */
export const SUGGESTIONS = 10;
/** As GET /api/payers: no payer name needs more. */
const MAX_QUERY = 100;

export const payerSearchRoutes: FastifyPluginAsyncTypebox<PortalDeps> = async (portal, deps) => {
  portal.get('/payers', async (request, reply) => {
    const q = queryValue(request, 'q').slice(0, MAX_QUERY);
    // An empty field suggests nothing (the datalist already offers the whole directory).
    const found = q.trim() ? (deps.payers?.searchPayers(q, SUGGESTIONS) ?? []) : [];
    const payers = found.map((p) => ({ id: p.id, name: p.name }));
    return reply.type('application/json; charset=utf-8').send({ payers });
  });
};
