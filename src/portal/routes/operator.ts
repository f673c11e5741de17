/**
 * The operators' Scorecard pages (docs/payers.md "Scorecard"): counts per connection and payer across
 * every organization, so only owners of OPERATOR_ORGANIZATION_ID see them; to everyone else they are a 404
 * like any address that is not there. Counts only: no check, patient or organization is named.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { payerScorecard, scorecardOverview } from '../../workers/payer-scorecard-read.ts';
import { IdParams, notFound, type PortalDeps, sendPage, session } from '../context.ts';
import { queryValue } from '../forms.ts';
import { payerScorecardPage, SCORECARD_WINDOWS, scorecardPage } from '../views/operator-scorecard.ts';

const PAGE_SIZE = 50;
const MAX_PAGE = 2000;

/** The window asked for: one of the offered ones, else a day. */
function hoursOf(text: string): number {
  const hours = Number(text);
  return SCORECARD_WINDOWS.some((w) => w.hours === hours) ? hours : 24;
}

function pageOf(text: string): number {
  return /^\d{1,4}$/.test(text) ? Math.min(Math.max(Number(text), 1), MAX_PAGE) : 1;
}

export const operatorRoutes: FastifyPluginAsyncTypebox<PortalDeps> = async (portal, deps) => {
  portal.get('/operator/scorecard', async (request, reply) => {
    const s = session(request);
    if (!s.operator) return notFound(request, reply);
    const hours = hoursOf(queryValue(request, 'hours'));
    const page = pageOf(queryValue(request, 'page'));
    const overview = await scorecardOverview(deps.db, {
      hours,
      limit: PAGE_SIZE,
      offset: (page - 1) * PAGE_SIZE,
    });
    return sendPage(reply, scorecardPage(s, overview, page));
  });

  portal.get('/operator/scorecard/payers/:id', { schema: { params: IdParams } }, async (request, reply) => {
    const s = session(request);
    if (!s.operator) return notFound(request, reply);
    const card = await payerScorecard(deps.db, request.params.id, hoursOf(queryValue(request, 'hours')));
    if (!card) return notFound(request, reply);
    return sendPage(reply, payerScorecardPage(s, card));
  });
};
