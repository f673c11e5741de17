// Event types are data (src/contract/webhook-events.ts): docs/webhooks.md and the OpenAPI document must
// describe every type of the table, with the table's example body.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import Fastify from 'fastify';
import { registerOpenApi } from '../../src/api/openapi.ts';
import { EVENT_TYPE_NAMES, EVENT_TYPES, isEventTypeName } from '../../src/contract/webhook-events.ts';

const doc = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');

test('docs/webhooks.md documents every event type with the example body of the table', () => {
  assert.deepEqual(
    EVENT_TYPES.map((t) => t.name),
    [...EVENT_TYPE_NAMES],
  );
  for (const t of EVENT_TYPES) {
    const marker = `<!-- event: ${t.name} `;
    const at = doc.indexOf(marker);
    assert.ok(at >= 0, `${t.name} documented`);
    const json = /```json\n([\s\S]*?)```/.exec(doc.slice(at))![1]!;
    assert.deepEqual(JSON.parse(json), t.example, `${t.name}: the documented example is the table's`);
    assert.ok(doc.includes(t.description), `${t.name}: the table's description`);
  }
});

test('the OpenAPI document describes each event type under webhooks', async () => {
  const app = Fastify();
  await registerOpenApi(app);
  await app.ready();
  const spec = app.swagger() as { openapi: string; webhooks?: Record<string, { post: { summary: string } }> };
  assert.deepEqual(Object.keys(spec.webhooks ?? {}), [...EVENT_TYPE_NAMES]);
  for (const name of EVENT_TYPE_NAMES) assert.equal(spec.webhooks![name]!.post.summary, name);
  await app.close();
});

test('only names of the table are event types', () => {
  assert.ok(isEventTypeName('batch.completed'));
  assert.ok(!isEventTypeName('eligibility.check.completed'));
  assert.ok(!isEventTypeName('test'));
});
