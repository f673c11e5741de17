/**
 * Checks: the organization's list (newest first, a patient search, filters, keyset pages, member ids cut
 * to their last four characters) and one check in full.
 *
 * The search (`q`: name, member id, date of birth) is PHI in the query string. It runs in the database
 * within the signed-in user's organization only; Fastify's request logging is off and the log serializer
 * drops query strings (src/log.ts), pages are `no-store` and `Referrer-Policy: no-referrer`, and a
 * signed-out visitor is sent to sign in without the query. test/portal/checks-search.test.ts greps the
 * logs for the terms.
 */

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { priceCharges, readEstimateRequest } from '../../checks/charges.ts';
import { coverageHistory } from '../../checks/check-history.ts';
import { collectAtDesk } from '../../checks/collect-summary.ts';
import { type CheckFilter, getCheck, listChecks, VERDICT_STATUSES } from '../../checks/list.ts';
import { scheduleZone } from '../../checks/zoned-dates.ts';
import type { CheckStatus, EligibilityCheckResponse, VerdictStatus } from '../../contract/check-response.ts';
import { estimateCharges } from '../../estimates/estimate.ts';
import type { Db } from '../../store/db.ts';
import { IdParams, notFound, noticeOf, type PortalDeps, seeOther, sendPage, session } from '../context.ts';
import { formBody, formValues, queryValue } from '../forms.ts';
import { COLLECT_FORM_ROWS, type CollectForm } from '../views/check-collect.ts';
import { checkDetailPage } from '../views/check-detail.ts';
import { checkPdf, checkPrintPage } from '../views/check-print.ts';
import { checksPage, type Filters, STATUSES } from '../views/checks.ts';

const PAGE_SIZE = 25;

/** An IANA zone name this runtime knows, else '' (the form's hidden field is the browser's to fill). */
function browserZone(zone: string): string {
  return /^[A-Za-z0-9_+\-/]{1,64}$/.test(zone) && scheduleZone(zone) === zone ? zone : '';
}

function readFilters(q: (name: string) => string): Filters {
  const status = q('status');
  const date = (v: string) => (/^\d{4}-\d{2}-\d{2}$/.test(v) ? v : '');
  const payer = q('payer').trim();
  const verdict = q('verdict');
  return {
    q: q('q').trim().slice(0, 200),
    verdict: VERDICT_STATUSES.includes(verdict as VerdictStatus) ? (verdict as VerdictStatus) : '',
    status: STATUSES.some(([s]) => s === status) ? (status as CheckStatus | '') : '',
    payer: /^[A-Za-z0-9._-]{1,50}$/.test(payer) ? payer : '',
    from: date(q('from')),
    to: date(q('to')),
    tz: browserZone(q('tz')),
  };
}

export const checkRoutes: FastifyPluginAsyncTypebox<PortalDeps> = async (portal, deps) => {
  portal.get('/checks', async (request, reply) => {
    const s = session(request);
    const f = readFilters((name) => queryValue(request, name));
    const before = queryValue(request, 'before');
    const filter: CheckFilter = { limit: PAGE_SIZE };
    if (f.q) filter.search = f.q;
    if (f.verdict) filter.verdict = f.verdict;
    if (f.status) filter.status = f.status;
    if (f.payer) filter.tradingPartnerServiceId = f.payer;
    if (f.from) filter.from = f.from;
    if (f.to) filter.to = f.to;
    // The days are the organization's, as its times are shown; else the browser's (see readFilters).
    filter.timeZone = s.organizationTimeZone ?? (f.tz || null);
    if (before) filter.before = before;
    const result = await listChecks(deps.db, s.user.organizationId, filter);
    return sendPage(reply, checksPage(s, f, result, Boolean(before), noticeOf(request)));
  });

  portal.get('/checks/:id', { schema: { params: IdParams } }, async (request, reply) => {
    const s = session(request);
    const check = await getCheck(deps.db, s.user.organizationId, request.params.id);
    if (!check) return notFound(request, reply);
    const history = await coverageHistory(deps.db, s.user.organizationId, check.id);
    return sendPage(reply, checkDetailPage(s, check, noticeOf(request), history));
  });

  // "Collect at desk": other charges estimated against the stored result; nothing is stored.
  portal.post('/checks/:id/estimate', { schema: { params: IdParams } }, async (request, reply) => {
    const s = session(request);
    const check = await getCheck(deps.db, s.user.organizationId, request.params.id);
    if (!check) return notFound(request, reply);
    const result = check.result;
    if (result?.status !== 'COMPLETED') return seeOther(reply, `/portal/checks/${check.id}`);
    const form = collectFormOf(formBody(request));
    const history = await coverageHistory(deps.db, s.user.organizationId, check.id);
    const answer = await estimateForm(deps.db, s.user.organizationId, result, form);
    if (answer.problems) {
      const failed = { form: { ...form, problems: answer.problems } };
      return sendPage(reply, checkDetailPage(s, check, undefined, history, failed), 400);
    }
    return sendPage(reply, checkDetailPage(s, check, undefined, history, { asked: answer.asked, form }));
  });

  // The check for the chart: a printable page and a PDF of the same content (views/check-print.ts).
  portal.get('/checks/:id/print', { schema: { params: IdParams } }, async (request, reply) => {
    const s = session(request);
    const check = await getCheck(deps.db, s.user.organizationId, request.params.id);
    if (!check) return notFound(request, reply);
    const ctx = { organizationName: s.organizationName, printedAt: new Date().toISOString() };
    return sendPage(reply, checkPrintPage(check, ctx));
  });

  portal.get('/checks/:id/print.pdf', { schema: { params: IdParams } }, async (request, reply) => {
    const s = session(request);
    const check = await getCheck(deps.db, s.user.organizationId, request.params.id);
    if (!check) return notFound(request, reply);
    const ctx = { organizationName: s.organizationName, printedAt: new Date().toISOString() };
    return reply
      .type('application/pdf')
      .header('content-disposition', `attachment; filename="eligibility-check-${check.id}.pdf"`)
      .send(checkPdf(check, ctx));
  });
};

/** The panel's rows as sent (cut to the form's size), problems empty. */
function collectFormOf(form: ReturnType<typeof formBody>): CollectForm {
  const types = formValues(form, 'serviceType');
  const amounts = formValues(form, 'amount');
  const codes = formValues(form, 'procedureCode');
  const rows = types.slice(0, COLLECT_FORM_ROWS).map((serviceType, i) => ({
    serviceType: serviceType.slice(0, 40),
    amount: (amounts[i] ?? '').trim().slice(0, 20),
    procedureCode: (codes[i] ?? '').trim().slice(0, 20),
  }));
  return { rows, problems: [] };
}

/** The rows with a service type, as charges: validated, priced and estimated as the API does. */
async function estimateForm(
  db: Db,
  organizationId: string,
  result: EligibilityCheckResponse,
  form: CollectForm,
) {
  const charges = form.rows
    .map((r, i) => ({ ...r, line: i + 1 }))
    .filter((r) => r.serviceType)
    .map((r) => ({
      serviceType: r.serviceType,
      ...(r.amount ? { amount: Number(r.amount.replace(/^\$/, '')) } : {}),
      ...(r.procedureCode ? { procedureCode: r.procedureCode } : {}),
    }));
  if (charges.length === 0)
    return { problems: ['Choose a service type and enter an amount (or a procedure code).'] };
  const read = readEstimateRequest({ charges });
  const say = (list: { field: string; problem: string }[]) =>
    list.map((p) => `${p.field.replace(/^charges\[(\d+)\]/, (_, n) => `Row ${Number(n) + 1}`)} ${p.problem}`);
  if (!read.ok) return { problems: say(read.problems) };
  const payerId = result.tradingPartnerServiceId ?? '';
  const priced = await priceCharges(db, organizationId, payerId, read.charges, 'charges');
  if (!priced.ok) return { problems: say(priced.problems) };
  const estimated = estimateCharges(result, priced.charges);
  return { asked: collectAtDesk(estimated.estimates, estimated.estimateTotal) };
}
