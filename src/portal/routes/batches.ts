/**
 * /portal/batches: upload a schedule CSV (the columns of `elig batch submit`, parsed by
 * src/batches/csv.ts) as one batch, the organization's batches, one batch's live progress, and its
 * results CSV (the same file as `elig batch results ID --csv`).
 *
 * A file with malformed rows (a CSV problem, or a row a single submit would refuse) is not sent: the
 * review page lists each by file line and reason, and the user may then send the valid rows. The upload
 * form carries a random `submission` value used as the batch's idempotency key, so a double click or a
 * re-sent form answers the batch already made instead of making a second one.
 *
 * The schedule is PHI: it travels only in POST bodies, is never logged, and the review page that carries
 * it back is `no-store` like every portal page.
 */
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import Type, { type Static } from 'typebox';
import {
  MAX_SCHEDULE_PROBLEMS,
  readScheduleCsv,
  resultsCsvHeader,
  resultsCsvLines,
  scheduleRows,
} from '../../batches/csv.ts';
import {
  BATCH_ITEM_STATUSES,
  batchResultPages,
  listOrganizationBatches,
  readBatch,
} from '../../batches/read.ts';
import { batchItemProblems, DEFAULT_MAX_PENDING_BATCH_CHECKS, submitBatch } from '../../batches/submit.ts';
import type { BatchItem } from '../../contract/batch.ts';
import { MAX_BATCH_CHECKS } from '../../contract/batch.ts';
import { randomBase62, UUID_PATTERN } from '../../ids.ts';
import { projectPath } from '../../paths.ts';
import type { Db } from '../../store/db.ts';
import { IdParams, notFound, noticeOf, type PortalDeps, seeOther, sendPage, session } from '../context.ts';
import { formBody, formValue, queryValue } from '../forms.ts';
import { BATCHES, batchesPage, batchPage, batchProblemPage, reviewPage } from '../views/batches.ts';

/**
 * A full schedule of 10,000 rows is about 1.5 MB of CSV; sent back from the review page it is
 * URL-encoded, which can triple it. Beyond this the portal's 413 page answers.
 */
export const BATCH_UPLOAD_LIMIT_BYTES = 8 * 1024 * 1024;
const LIST_PAGE = 25;
const ITEMS_PAGE = 100;
const SUBMISSION = /^[0-9A-Za-z]{24}$/;
/** A batch page's query: the items of one status, after an item index; anything else reads as none. */
const BatchQuery = Type.Object({
  status: Type.Optional(Type.String()),
  after: Type.Optional(Type.String()),
});

export const batchRoutes: FastifyPluginAsyncTypebox<PortalDeps> = async (portal, deps) => {
  portal.get('/batches', async (request, reply) => {
    const s = session(request);
    const before = queryValue(request, 'before');
    const list = await listOrganizationBatches(deps.db, s.user.organizationId, {
      before: UUID_PATTERN.test(before) ? before : undefined,
      limit: LIST_PAGE,
    });
    return sendPage(reply, batchesPage(s, list, Boolean(before), randomBase62(24)));
  });

  portal.get('/batches/template.csv', sendTemplate);

  portal.post('/batches', { bodyLimit: BATCH_UPLOAD_LIMIT_BYTES }, async (request, reply) => {
    const s = session(request);
    const form = formBody(request);
    // The upload sends the file (`file`); the review page sends the same text back (`csv`).
    const csv = formValue(form, 'file') || formValue(form, 'csv');
    const fileName = formValue(form, 'file.filename').slice(0, 200);
    const name = formValue(form, 'name').trim().slice(0, 200) || fileName || undefined;
    const submission = formValue(form, 'submission');
    if (!SUBMISSION.test(submission)) return formExpired(request, reply);
    if (!csv.trim()) {
      return problemPage(request, reply, 'No file', 'Choose a CSV file to upload.', 400);
    }
    const parsed = await readScheduleCsv(csv);
    if (parsed.tooManyRows) {
      return problemPage(
        request,
        reply,
        'Too many rows',
        `The file has more than ${MAX_BATCH_CHECKS.toLocaleString('en-US')} rows, the most a batch takes. Split it into several files.`,
        400,
      );
    }
    const itemMessages = await batchItemProblems(parsed.checks, deps.payers);
    const itemProblems = itemMessages.flatMap((message, i) =>
      message === undefined ? [] : [{ line: parsed.lines[i]!, message }],
    );
    // Both lists are in line order, so the first problems of their merge are among the first of each.
    const problems = [...parsed.problems, ...itemProblems.slice(0, MAX_SCHEDULE_PROBLEMS)]
      .sort((a, b) => a.line - b.line)
      .slice(0, MAX_SCHEDULE_PROBLEMS);
    const problemCount = parsed.problemCount + itemProblems.length;
    const valid = parsed.checks.length - itemProblems.length;
    if (problemCount && (formValue(form, 'send') !== 'valid' || valid === 0)) {
      // Sent back: the rows that became bodies, so a row that could not be read is never echoed.
      const review = {
        fileName,
        name: name ?? '',
        csv: scheduleRows(csv, parsed),
        submission,
        valid,
        problems,
        problemCount,
      };
      return sendPage(reply, reviewPage(s, review), valid ? 200 : 400);
    }
    const result = await submitBatch(
      deps.db,
      s.user.organizationId,
      { checks: parsed.checks, ...(name ? { name } : {}) },
      {
        idempotencyKey: `portal:${submission}`,
        payers: deps.payers,
        maxPendingChecks: deps.batchMaxPendingChecks ?? DEFAULT_MAX_PENDING_BATCH_CHECKS,
        wake: () => portal.checksNotifier.notify(),
      },
    );
    if (!result.ok) {
      if ('overLimit' in result) {
        const { pending, limit } = result.overLimit;
        return problemPage(
          request,
          reply,
          'Too many checks in progress',
          `Your organization has ${pending.toLocaleString('en-US')} batch checks in progress (at most ${limit.toLocaleString('en-US')}). Wait for earlier batches to progress, or send a smaller file.`,
          429,
        );
      }
      if ('conflict' in result) {
        return problemPage(
          request,
          reply,
          'Form already used',
          'This upload form already sent another file. Open Batches again and upload from the fresh form.',
          409,
        );
      }
      // Every row was checked above: only a file whose rows all fail can land here.
      return problemPage(request, reply, 'Nothing to send', 'No row of the file can be checked.', 400);
    }
    const { id, counts } = result.accepted;
    request.log.info(
      { userId: s.user.id, batchId: id, accepted: counts.total, replayed: result.replayed },
      'batch submitted from the portal',
    );
    return seeOther(reply, `${BATCHES}/${id}?notice=batch-submitted`);
  });

  portal.get('/batches/:id', { schema: { params: IdParams, querystring: BatchQuery } }, (request, reply) =>
    showBatch(deps, request, reply, request.params.id, request.query),
  );

  portal.get('/batches/:id/results.csv', { schema: { params: IdParams } }, (request, reply) =>
    sendResults(deps, request, reply, request.params.id),
  );
};

/** The batch's page: its counts, and a page of its items (by status, after an item index). */
async function showBatch(
  deps: PortalDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  id: string,
  query: Static<typeof BatchQuery>,
) {
  const s = session(request);
  const status = BATCH_ITEM_STATUSES.find((x) => x === query.status);
  const after = /^\d{1,6}$/.test(query.after ?? '') ? Number(query.after) : undefined;
  const batch = await ownBatch(deps.db, s.user.organizationId, id, { status, after });
  if (!batch) return notFound(request, reply);
  const view = { status: status ?? ('' as const), paged: after !== undefined };
  return sendPage(reply, batchPage(s, batch, view, noticeOf(request)));
}

/** The results CSV, streamed a page of items at a time. */
async function sendResults(deps: PortalDeps, request: FastifyRequest, reply: FastifyReply, id: string) {
  const s = session(request);
  const batch = await ownBatch(deps.db, s.user.organizationId, id, { limit: 1 });
  if (!batch) return notFound(request, reply);
  const db = deps.db;
  async function* csv() {
    yield resultsCsvHeader();
    for await (const rows of batchResultPages(db, batch!.id)) yield resultsCsvLines(rows);
  }
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="batch-${batch.id}-results.csv"`)
    .send(Readable.from(csv()));
}

/** The CSV template, read when asked (a few hundred bytes): without examples/ every other page still works. */
async function sendTemplate(request: FastifyRequest, reply: FastifyReply) {
  let template: Buffer;
  try {
    template = readFileSync(projectPath('examples', 'batch.example.csv'));
  } catch {
    return notFound(request, reply);
  }
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', 'attachment; filename="batch.example.csv"')
    .send(template);
}

/** The organization's batch with a page of its items; undefined for a malformed id or another's batch. */
function ownBatch(
  db: Db,
  organizationId: string,
  id: string,
  page: { status?: BatchItem['status']; after?: number; limit?: number },
) {
  if (!UUID_PATTERN.test(id)) return Promise.resolve(undefined);
  return readBatch(db, organizationId, id, { limit: ITEMS_PAGE, ...page });
}

function problemPage(
  request: FastifyRequest,
  reply: FastifyReply,
  title: string,
  message: string,
  status: number,
) {
  return sendPage(reply, batchProblemPage(request.portalSession, title, message), status);
}

function formExpired(request: FastifyRequest, reply: FastifyReply) {
  return problemPage(
    request,
    reply,
    'Form expired',
    'This form is not the current upload form. Open Batches again and upload from there.',
    400,
  );
}
