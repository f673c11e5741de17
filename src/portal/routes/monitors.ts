/**
 * /portal/monitors: the organization's monitors (recurring checks), one monitor with its latest runs, and
 * the forms that create (from a check page), pause, resume and delete one. The same rules as the API
 * (src/monitors/monitors.ts); another organization's monitor or check is the 404 page.
 *
 * A monitor is created from a check: the form carries only the check id and the schedule, and the patient,
 * payer and provider are read from that check's stored request, server-side, so no PHI travels in a URL.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getCheck } from '../../checks/list.ts';
import type { FieldProblem } from '../../checks/request.ts';
import {
  createMonitor,
  listMonitors,
  readMonitor,
  removeMonitor,
  setMonitorStatus,
} from '../../monitors/monitors.ts';
import { IdParams, notFound, noticeOf, type PortalDeps, seeOther, sendPage, session } from '../context.ts';
import { formBody, formValue, queryValue } from '../forms.ts';
import {
  MONITORS_PATH,
  type MonitorFormValues,
  monitorDetailPage,
  monitorFormPage,
  monitorListPage,
} from '../views/monitors.ts';

const PAGE_SIZE = 25;

/** The form's problems, each on the field it is about; a problem with the check itself on none. */
function formErrors(problems: FieldProblem[]): { field: string; message: string }[] {
  return problems.map((p) => {
    const date = /^dates\[(\d+)\]$/.exec(p.field);
    if (date) return { field: 'dates', message: `Visit date ${Number(date[1]) + 1} ${p.problem}.` };
    if (p.field === 'dates') return { field: 'dates', message: `Visit dates ${p.problem}.` };
    if (p.field === 'every') return { field: 'every', message: `Days between checks ${p.problem}.` };
    return { field: 'schedule', message: `This check cannot be repeated as it is: ${p.field} ${p.problem}.` };
  });
}

export const monitorRoutes: FastifyPluginAsyncTypebox<PortalDeps> = async (portal, deps) => {
  portal.get('/monitors', async (request, reply) => {
    const s = session(request);
    const before = queryValue(request, 'before');
    const result = await listMonitors(deps.db, s.user.organizationId, {
      after: before || undefined,
      limit: PAGE_SIZE,
    });
    return sendPage(reply, monitorListPage(s, result, Boolean(before), noticeOf(request)));
  });

  portal.get('/monitors/:id', { schema: { params: IdParams } }, async (request, reply) => {
    const s = session(request);
    const monitor = await readMonitor(deps.db, s.user.organizationId, request.params.id);
    if (!monitor) return notFound(request, reply);
    return sendPage(reply, monitorDetailPage(s, monitor, noticeOf(request)));
  });

  portal.post('/monitors', async (request, reply) => {
    const s = session(request);
    const form = formBody(request);
    const check = await getCheck(deps.db, s.user.organizationId, formValue(form, 'check'));
    if (!check?.request) return notFound(request, reply);
    const values: MonitorFormValues = {
      schedule: formValue(form, 'schedule') === 'every' ? 'every' : 'dates',
      every: formValue(form, 'every').trim(),
      dates: formValue(form, 'dates').trim(),
    };
    const { tradingPartnerServiceId, provider, subscriber, encounter } = check.request;
    const schedule =
      values.schedule === 'every'
        ? { every: /^\d{1,4}$/.test(values.every) ? Number(values.every) : values.every }
        : { dates: values.dates.split(/[\s,]+/).filter(Boolean) };
    const created = await createMonitor(
      deps.db,
      s.user.organizationId,
      {
        tradingPartnerServiceId,
        provider,
        subscriber,
        ...(encounter?.serviceTypeCodes
          ? { encounter: { serviceTypeCodes: encounter.serviceTypeCodes } }
          : {}),
        ...schedule,
      },
      { maxPerOrganization: deps.monitorMaxPerOrganization ?? 10_000, payers: deps.payers },
    );
    if (created.ok) return seeOther(reply, `${MONITORS_PATH}/${created.monitor.id}?notice=monitor-created`);
    // The portal sends no Idempotency-Key, so a refusal is a problem with the form or the limit.
    const errors =
      'problems' in created
        ? formErrors(created.problems)
        : [
            {
              field: 'schedule',
              message:
                'overLimit' in created
                  ? `Your organization has the most monitors allowed (${created.overLimit}). Delete some you no longer need first.`
                  : created.conflict,
            },
          ];
    return sendPage(reply, monitorFormPage(s, check.id, values, errors), 'problems' in created ? 400 : 429);
  });

  for (const [action, status] of [
    ['pause', 'paused'],
    ['resume', 'active'],
  ] as const) {
    portal.post(`/monitors/:id/${action}`, { schema: { params: IdParams } }, async (request, reply) => {
      const s = session(request);
      const result = await setMonitorStatus(deps.db, s.user.organizationId, request.params.id, status);
      if (!result.ok && 'notFound' in result) return notFound(request, reply);
      const back =
        formValue(formBody(request), 'return') === 'detail'
          ? `${MONITORS_PATH}/${request.params.id}`
          : MONITORS_PATH;
      return seeOther(reply, `${back}?notice=monitor-${result.ok ? status : 'completed'}`);
    });
  }

  portal.post('/monitors/:id/delete', { schema: { params: IdParams } }, async (request, reply) => {
    const s = session(request);
    if (!(await removeMonitor(deps.db, s.user.organizationId, request.params.id))) {
      return notFound(request, reply);
    }
    return seeOther(reply, `${MONITORS_PATH}?notice=monitor-deleted`);
  });
};
