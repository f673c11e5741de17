/**
 * Settings > Fee schedule (owners): the schedule and its CSV upload (src/fees/fee-schedule.ts): a file
 * with a bad row changes nothing and its problems are listed by line; a good one replaces the schedule.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { importFeeSchedule } from '../../fees/fee-schedule.ts';
import { countFees, listFees } from '../../store/fee-schedule.ts';
import { ownerOnly } from '../access.ts';
import { noticeOf, type PortalDeps, seeOther, sendPage, session } from '../context.ts';
import { formBody, formValue } from '../forms.ts';
import { FEES, feesPage } from '../views/fees.ts';

/** 10,000 rows of about 40 characters; multipart framing on top. */
const FEES_UPLOAD_LIMIT_BYTES = 2 * 1024 * 1024;
const SHOWN_ROWS = 200;

export const feeRoutes: FastifyPluginAsyncTypebox<PortalDeps> = async (portal, deps) => {
  const view = async (organizationId: string) => ({
    total: await countFees(deps.db, organizationId),
    rows: await listFees(deps.db, organizationId, SHOWN_ROWS),
  });

  portal.get('/settings/fees', ownerOnly, async (request, reply) => {
    const s = session(request);
    return sendPage(reply, feesPage(s, await view(s.user.organizationId), noticeOf(request)));
  });

  portal.post(
    '/settings/fees',
    { ...ownerOnly, bodyLimit: FEES_UPLOAD_LIMIT_BYTES },
    async (request, reply) => {
      const s = session(request);
      const csv = formValue(formBody(request), 'file');
      const imported = await importFeeSchedule(deps.db, s.user.organizationId, csv);
      if (!imported.ok) {
        const current = await view(s.user.organizationId);
        const { problems, problemCount } = imported;
        return sendPage(reply, feesPage(s, { ...current, problems, problemCount }), 400);
      }
      return seeOther(reply, `${FEES}?notice=fees-saved`);
    },
  );
};
