/**
 * The security cases of one key-authenticated route (route-table.ts finds them all), each a named check
 * that runs against the service of a SecurityContext (security-context.ts). For every route: no key,
 * malformed keys, a key never issued and a revoked key are 401; a key without the route's scope and a key
 * of an organization not enabled are 403, while a key with only that scope is served (the control); and a
 * key of another organization finds nothing of the owner's: a resource named by id is a 404 with the body
 * of a missing id (and stays as it was), a list holds none of the owner's items, and a reused
 * Idempotency-Key is no replay. Malformed ids and path tricks are a 404, never a 500; a GET's automatic
 * HEAD is refused the same way.
 */
import assert from 'node:assert/strict';
import { SCOPES } from '../../src/tenancy/api-keys.ts';
import { assertNothingLeaks, expectRefusal } from './refusal-bodies.ts';
import type { CoveredRoute } from './route-table.ts';
import { idempotencyKey, missingIdLike, pathWith, type SecurityContext, send } from './security-context.ts';

/** Path segments as sent (already encoded): not an id, SQL, a traversal, long, a NUL byte. */
const MALFORMED_IDS = ['not-a-uuid', "1'%20OR%201=1", '..%2F..%2Fetc%2Fpasswd', 'x'.repeat(150), '%00'];

export interface SecurityCase {
  name: string;
  run(): Promise<void>;
}

export function securityCases(route: CoveredRoute, ctx: SecurityContext): SecurityCase[] {
  const { keys } = ctx;
  const cases: SecurityCase[] = [];
  const add = (name: string, run: () => Promise<void>) => cases.push({ name, run });
  const body = () => (route.hasBody ? ctx.bodyOf(route) : undefined);
  const readable = ctx.routes.find((r) => r.method === 'GET' && r.path === route.path);
  /**
   * Runs `act` on the route's path, filled with the owner's resource; for a write on a resource, also
   * checks that the owner sees it afterwards as it was before (a refusal changes nothing).
   */
  const onOwners = async (act: (path: string) => Promise<void>) => {
    if (!route.params.length) return act(route.path);
    const path = pathWith(route, await ctx.resourceOf(route));
    const view = async () =>
      readable && route.method !== 'GET'
        ? send(ctx.url, readable, { authorization: `Key ${keys.owner}`, path })
        : undefined;
    const before = await view();
    await act(path);
    const after = await view();
    if (before && after) {
      assert.equal(after.status, readable!.success, after.text);
      assert.deepEqual(after.body, before.body, 'the owner still sees it as it was');
    }
  };
  const refused = (
    name: string,
    authorization: string | undefined,
    refusal: 'unauthorized' | 'forbidden',
    check?: (text: string) => void,
  ) =>
    add(name, () =>
      onOwners(async (path) => {
        const answer = await send(ctx.url, route, { authorization, path, body: body() });
        expectRefusal(route, answer, refusal, ctx.secrets);
        check?.(answer.text);
      }),
    );
  const others = SCOPES.filter((s) => s !== route.scope);

  refused('no Authorization header → 401', undefined, 'unauthorized');
  if (route.family === 'fhir') {
    // SMART clients send their token as Bearer: the FHIR face takes the key that way too, and no other.
    refused('another scheme (Basic) with a valid key → 401', `Basic ${keys.owner}`, 'unauthorized');
    refused('Bearer with garbage → 401', 'Bearer %not-a-key%', 'unauthorized');
    refused('a revoked key as Bearer → 401', `Bearer ${keys.revoked}`, 'unauthorized');
    add(`a key with only ${route.scope}, as Bearer, is served → ${route.success}`, async () => {
      const path = route.params.length ? pathWith(route, await ctx.freshResource(route)) : route.path;
      const answer = await send(ctx.url, route, {
        authorization: `Bearer ${keys.only[route.scope]}`,
        path,
        body: body(),
      });
      assert.equal(answer.status, route.success, answer.text);
    });
  } else {
    refused('another scheme (Bearer) with a valid key → 401', `Bearer ${keys.owner}`, 'unauthorized');
  }
  refused('Key with garbage → 401', 'Key %not-a-key%', 'unauthorized');
  refused('Key with nothing after it → 401', 'Key ', 'unauthorized');
  refused('a well-formed key never issued → 401', `Key ${keys.unknown}`, 'unauthorized');
  refused(
    'an issued key with one character of its secret changed → 401',
    `Key ${keys.tampered}`,
    'unauthorized',
  );
  refused('a revoked key → 401', `Key ${keys.revoked}`, 'unauthorized');

  const invalid = invalidInput(route);
  if (invalid) {
    add(`no key with an invalid ${invalid.what} → 401, before it is validated`, () =>
      onOwners(async (resource) => {
        const path = resource + invalid.query;
        const withKey = await send(ctx.url, route, {
          authorization: `Key ${keys.owner}`,
          path,
          body: invalid.body,
        });
        assert.equal(withKey.status, 400, `the input is invalid with a key: ${withKey.text}`);
        const answer = await send(ctx.url, route, { path, body: invalid.body });
        expectRefusal(route, answer, 'unauthorized', ctx.secrets);
      }),
    );
  }

  refused(
    `a key without ${route.scope} (it has ${others.join(', ') || 'no scope'}) → 403`,
    `Key ${keys.without[route.scope]}`,
    'forbidden',
    (text) => assert.ok(text.includes(route.scope), `the refusal names the scope it needs: ${text}`),
  );
  refused('a key of an organization not enabled for eligibility → 403', `Key ${keys.disabled}`, 'forbidden');
  add(`a key with only ${route.scope} is served → ${route.success}`, async () => {
    const path = route.params.length ? pathWith(route, await ctx.freshResource(route)) : route.path;
    const answer = await send(ctx.url, route, {
      authorization: `Key ${keys.only[route.scope]}`,
      path,
      body: body(),
    });
    assert.equal(answer.status, route.success, answer.text);
    if (typeof answer.body?.id === 'string') ctx.owned.add(answer.body.id);
  });

  if (route.params.length) {
    add(`another organization's key: the owner's {${route.params[0]}} is a 404, as a missing id`, () =>
      onOwners(async (path) => {
        const other = `Key ${keys.other}`;
        const theirs = await send(ctx.url, route, { authorization: other, path, body: body() });
        const missing = await send(ctx.url, route, {
          authorization: other,
          path: pathWith(route, missingIdLike(await ctx.resourceOf(route))),
          body: body(),
        });
        expectRefusal(route, missing, 'not-found', ctx.secrets);
        expectRefusal(route, theirs, 'not-found', ctx.secrets);
        assert.deepEqual(theirs.body, missing.body, 'indistinguishable from a missing id');
      }),
    );
    add('malformed ids and path tricks → 404, never 500', async () => {
      for (const id of MALFORMED_IDS) {
        const path = route.path.replace(`{${route.params[0]}}`, id);
        const answer = await send(ctx.url, route, { authorization: `Key ${keys.owner}`, path, body: body() });
        expectRefusal(route, answer, 'not-found', ctx.secrets);
      }
    });
  } else if (route.method === 'GET') {
    add("another organization's key: none of the owner's items in the answer", async () => {
      const mine = await send(ctx.url, route, { authorization: `Key ${keys.owner}` });
      const theirs = await send(ctx.url, route, { authorization: `Key ${keys.other}` });
      assert.equal(theirs.status, route.success, theirs.text);
      const ids = [...ctx.owned];
      if (ids.some((id) => mine.text.includes(id))) {
        // Ids only: the other organization may well ask about the same patient.
        assertNothingLeaks(theirs.text, ids);
      } else {
        // Nothing of the owner's in it: the same answer for everyone (the payer directory).
        assert.deepEqual(theirs.body, mine.body, 'an answer without tenant data is the same for everyone');
      }
    });
  } else if (route.idempotent) {
    add("another organization reusing the owner's Idempotency-Key gets no replay", async () => {
      const headers = { 'idempotency-key': idempotencyKey() };
      const sample = ctx.bodyOf(route);
      const mine = await send(ctx.url, route, { authorization: `Key ${keys.owner}`, body: sample, headers });
      assert.equal(mine.status, route.success, mine.text);
      ctx.owned.add(mine.body.id);
      const replay = await send(ctx.url, route, {
        authorization: `Key ${keys.owner}`,
        body: sample,
        headers,
      });
      assert.equal(replay.headers.get('idempotent-replayed'), 'true', 'the owner gets a replay');
      assert.equal(replay.body.id, mine.body.id);
      const theirs = await send(ctx.url, route, {
        authorization: `Key ${keys.other}`,
        body: sample,
        headers,
      });
      assert.equal(theirs.status, route.success, theirs.text);
      assert.equal(theirs.headers.get('idempotent-replayed'), null);
      assert.notEqual(theirs.body.id, mine.body.id);
      assertNothingLeaks(theirs.text, [...ctx.owned]);
    });
  }

  if (route.hasHead) {
    const head = (name: string, authorization: string | undefined, status: number, missing = false) =>
      add(`HEAD: ${name} → ${status}`, async () => {
        const id = route.params.length ? await ctx.resourceOf(route) : '';
        const path = route.params.length ? pathWith(route, missing ? missingIdLike(id) : id) : route.path;
        const answer = await send(ctx.url, route, { method: 'HEAD', authorization, path });
        assert.equal(answer.status, status, `HEAD ${path}`);
      });
    head('no Authorization header', undefined, 401);
    head(`a key without ${route.scope}`, `Key ${keys.without[route.scope]}`, 403);
    if (route.params.length)
      head("another organization's key on the owner's resource", `Key ${keys.other}`, 404);
  }
  return cases.map((c) => ({ ...c, name: `${route.method} ${route.path}: ${c.name}` }));
}

/**
 * Input the route refuses with 400 when it comes with a valid key: a body with an unknown field, or query
 * values outside their documented schemas. Undefined for a route that takes neither.
 */
function invalidInput(route: CoveredRoute): { what: string; query: string; body?: unknown } | undefined {
  const query = Object.entries(route.query)
    .map(([name, schema]) => [name, invalidValue(schema)] as const)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value!)}`);
  if (route.hasBody) return { what: 'body', query: '', body: { unexpected: true } };
  if (query.length) return { what: 'query', query: `?${query.join('&')}` };
  return undefined;
}

/** A value its schema refuses, when one is easy to name. */
function invalidValue(schema: any): string | undefined {
  if (schema.type === 'integer' || schema.type === 'number') return 'not-a-number';
  if (typeof schema.maxLength === 'number') return 'x'.repeat(schema.maxLength + 1);
  if (schema.enum || schema.anyOf || schema.const !== undefined) return 'not-one-of-these';
  return undefined;
}
