// How a new route reaches the OpenAPI document (CONTRIBUTING.md "Its OpenAPI description"): its TypeBox
// schemas with an `$id` become named components, referenced with `$ref`, from any plugin, while Fastify
// still validates and serializes with them; one name for two different schemas stops the start.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify, { type FastifyPluginAsync } from 'fastify';
import Type from 'typebox';
import { errorResponses, registerOpenApi, successResponse } from '../../src/api/openapi.ts';

const Schedule = Type.Object({ cron: Type.String() }, { $id: 'TestSchedule' });
const Monitor = Type.Object(
  { id: Type.String(), schedule: Schedule, backup: Type.Optional(Schedule) },
  { $id: 'TestMonitor' },
);
const NewMonitor = Type.Object(
  { schedule: Schedule },
  { $id: 'TestNewMonitor', additionalProperties: false },
);

const monitorRoutes: FastifyPluginAsync = async (app) => {
  app.post(
    '/api/monitors',
    {
      schema: {
        operationId: 'createMonitor',
        summary: 'Create a monitor',
        tags: ['Monitors'],
        body: NewMonitor,
        response: { 201: successResponse('Created.', Monitor), ...errorResponses([400]) },
      },
    },
    async (_request, reply) =>
      reply.code(201).send({ id: 'm1', schedule: { cron: '0 6 * * *' }, secret: 'x' }),
  );
};

test('a route registered in a plugin has its $id schemas named, referenced and still enforced', async () => {
  const app = Fastify();
  await registerOpenApi(app, { serverUrl: () => 'https://elig.example' });
  await app.register(monitorRoutes);
  await app.ready();
  const doc = (await app.inject('/openapi.json')).json();
  assert.deepEqual(doc.servers, [{ url: 'https://elig.example', description: 'This service' }]);
  const op = doc.paths['/api/monitors'].post;
  assert.deepEqual(op.requestBody.content['application/json'].schema, {
    $ref: '#/components/schemas/TestNewMonitor',
  });
  assert.deepEqual(op.responses['201'].content['application/json'].schema, {
    $ref: '#/components/schemas/TestMonitor',
  });
  assert.deepEqual(doc.components.schemas.TestMonitor.properties.schedule, {
    $ref: '#/components/schemas/TestSchedule',
  });
  assert.equal(doc.components.schemas.TestSchedule.properties.cron.type, 'string');
  // Fastify validates the body and serializes the answer with the same schemas ($id-free copies).
  const bad = await app.inject({ method: 'POST', url: '/api/monitors', payload: { schedule: {}, extra: 1 } });
  assert.equal(bad.statusCode, 400);
  const good = await app.inject({
    method: 'POST',
    url: '/api/monitors',
    payload: { schedule: { cron: '0 6 * * *' } },
  });
  assert.equal(good.statusCode, 201);
  assert.deepEqual(
    good.json(),
    { id: 'm1', schedule: { cron: '0 6 * * *' } },
    'unlisted fields are not sent',
  );
  await app.close();
});

test('two different schemas with one $id stop the start', async () => {
  const app = Fastify();
  await registerOpenApi(app);
  const Other = Type.Object({ other: Type.Number() }, { $id: 'TestSchedule' });
  app.get(
    '/api/a',
    { schema: { tags: ['T'], response: { 200: successResponse('A.', Schedule) } } },
    async () => ({ cron: 'x' }),
  );
  await assert.rejects(async () => {
    app.get(
      '/api/b',
      { schema: { tags: ['T'], response: { 200: successResponse('B.', Other) } } },
      async () => ({
        other: 1,
      }),
    );
    await app.ready();
  }, /two different schemas are named TestSchedule/);
  await app.close().catch(() => {});
});
