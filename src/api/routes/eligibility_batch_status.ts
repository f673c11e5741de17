/**
 * GET /api/eligibility/batch/{id}: a batch's counts by status and verdict, its progress, and one page of
 * its items (request order, `?status=` filter, `?after=` cursor). Another organization's batch is 404.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import fp from 'fastify-plugin';
import Type from 'typebox';
import { BATCH_ITEM_STATUSES, readBatch } from '../../batches/read.ts';
import { BatchPage } from '../../contract/batch.ts';
import { UUID_PATTERN } from '../../ids.ts';
import { notFound } from '../errors.ts';
import { IdParams, type KeyRouteOptions, readGate } from '../key-gates.ts';
import { errorResponses, successResponse } from '../openapi.ts';

const Query = Type.Object({
  status: Type.Optional(Type.Union(BATCH_ITEM_STATUSES.map((s) => Type.Literal(s)))),
  after: Type.Optional(
    Type.Integer({ minimum: -1, description: 'Cursor: the `next` of the previous page.' }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
});

export const batchStatusRoute: FastifyPluginAsyncTypebox<KeyRouteOptions> = async (
  app,
  { auth, limiter },
) => {
  app.get(
    '/api/eligibility/batch/:id',
    {
      schema: {
        summary: 'Get a batch of eligibility checks',
        description:
          "Counts by status and by verdict, progress, and a page of items with each check's id, status and " +
          'verdict. A batch of another organization answers 404.',
        operationId: 'getEligibilityBatch',
        tags: ['Eligibility'],
        security: [{ ApiKeyAuth: [] }],
        params: IdParams,
        querystring: Query,
        response: {
          200: successResponse('The batch, with one page of its items.', BatchPage),
          ...errorResponses([400, 401, 403, 404, 429, 500, 503], {
            400: 'A query parameter is not one of `status`, `after`, `limit`, or its value is out of range (ValidationException).',
            404: 'No batch with this id in your organization (ResourceNotFoundException).',
          }),
        },
      },
      // Authentication first, so a caller without a valid key learns nothing, not even a query problem.
      onRequest: readGate(auth, limiter),
    },
    async (request, reply) => {
      const key = request.auth!;
      const { id } = request.params;
      if (!UUID_PATTERN.test(id)) throw notFound('No batch with this id.');
      const { status, after, limit = 100 } = request.query;
      const batch = await readBatch(app.db, key.organizationId, id, { status, after, limit });
      if (!batch) throw notFound('No batch with this id.');
      reply.header('cache-control', 'no-store');
      return batch;
    },
  );
};
fp(batchStatusRoute, {
  name: 'eligibility-batch-status',
  decorators: { fastify: ['db'] },
  encapsulate: true,
});
