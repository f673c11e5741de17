/**
 * The client's types are generated from the OpenAPI document the app serves (scripts/client-types.ts): the
 * committed file must be what the current document generates, so a schema or route change that forgets
 * `npm run client:types` fails here rather than shipping a client that disagrees with the server.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import type { OpenAPI3 } from 'openapi-typescript';
import { CLIENT_TYPES_FILE, clientTypes } from '../../scripts/client-types.ts';
import { projectPath } from '../../src/paths.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

let svc: TestService;
let doc: OpenAPI3;
before(async () => {
  svc = await startTestService({ roles: { api: true, worker: false } });
  doc = (await (await fetch(`${svc.url}/openapi.json`)).json()) as OpenAPI3;
});
after(() => svc.stop());

test('the committed client types are what the served OpenAPI document generates (npm run client:types)', async () => {
  const committed = readFileSync(projectPath(CLIENT_TYPES_FILE), 'utf8');
  const fresh = await clientTypes(doc);
  assert.ok(
    committed === fresh,
    `${CLIENT_TYPES_FILE} is stale: run \`npm run client:types\` and commit the result`,
  );
});

test('the check fails on a changed document: a new schema changes the generated types', async () => {
  const changed = structuredClone(doc) as OpenAPI3 & { components: { schemas: Record<string, unknown> } };
  changed.components.schemas.Monitor = { type: 'object', properties: { id: { type: 'string' } } };
  const generated = await clientTypes(changed);
  assert.notEqual(generated, readFileSync(projectPath(CLIENT_TYPES_FILE), 'utf8'));
  assert.match(generated, /export type Monitor = components\['schemas'\]\['Monitor'\];/);
});

test('every named schema of the document is a named type of the client', () => {
  const generated = readFileSync(projectPath(CLIENT_TYPES_FILE), 'utf8');
  for (const name of Object.keys(doc.components?.schemas ?? {})) {
    assert.match(
      generated,
      new RegExp(`^export type ${name} = components\\['schemas'\\]\\['${name}'\\];$`, 'm'),
    );
  }
});
