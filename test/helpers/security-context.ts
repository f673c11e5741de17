/**
 * What the generated security cases (security-cases.ts) work with: the keys (the owner's, one per scope,
 * revoked, never issued, another organization's, a disabled organization's), real resources of the owning
 * organization to fill path parameters with, made with the create operation of their collection (`POST /x`
 * makes what `/x/{id}` names), and the requests.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { KEYS_CHANNEL } from '../../src/store/channels.ts';
import type { Db } from '../../src/store/db.ts';
import { createApiKey, revokeApiKey, SCOPES, type Scope } from '../../src/tenancy/api-keys.ts';
import { createOrganization, setEligibilityEnabled } from '../../src/tenancy/organizations.ts';
import { eventually } from './eventually.ts';
import type { Answer } from './refusal-bodies.ts';
import type { CoveredRoute } from './route-table.ts';
import type { TestService } from './service.ts';

export interface SecuritySamples {
  /** A valid body for each operation that takes one, by operationId. */
  bodies: Record<string, () => unknown>;
  /** The PHI those bodies carry (member ids, names, dates of birth): no refusal may repeat it. */
  phi: string[];
  /**
   * For an operation served only on a resource in a given state (an estimate needs a COMPLETED check), by
   * operationId: brings the fresh resource of the "served" control to that state.
   */
  ready?: Record<string, (id: string) => Promise<void>>;
}

export interface Keys {
  /** Every scope, in the organization that owns the resources. */
  owner: string;
  /** Only this scope, in the owner's organization. */
  only: Record<Scope, string>;
  /** Every scope but this one, in the owner's organization. */
  without: Record<Scope, string>;
  revoked: string;
  /** Every scope, in another organization. */
  other: string;
  /** Every scope, in an organization not enabled for eligibility checks. */
  disabled: string;
  /** Well formed, never issued. */
  unknown: string;
  /** The owner's key with the last character of its secret changed: a known prefix, a wrong hash. */
  tampered: string;
}

export interface SecurityContext {
  url: string;
  keys: Keys;
  routes: CoveredRoute[];
  /** Never in a refusal: the PHI of the samples, every key, the owner's organization id. */
  secrets: string[];
  /** Ids of everything the owner created, for "nothing of theirs in another organization's answer". */
  owned: Set<string>;
  bodyOf(route: CoveredRoute): unknown;
  /** The owner's resource named by the route's path parameter (one per collection, made once). */
  resourceOf(route: CoveredRoute): Promise<string>;
  /** A new one, for a case that changes or deletes it (in the state the operation serves: `ready`). */
  freshResource(route: CoveredRoute): Promise<string>;
}

/** The keys, organizations and resources the cases use, in the running service `svc`. */
export async function prepareSecurityContext(
  svc: TestService,
  routes: CoveredRoute[],
  samples: SecuritySamples,
): Promise<SecurityContext> {
  const db = svc.service.store.db;
  const issued: string[] = [];
  const issue = async (organizationId: string, scopes: Scope[]) => {
    const { key, record } = await createApiKey(db, svc.service.keys.apiKeyPepper, {
      organizationId,
      name: `security cases: ${scopes.join(' ')}`,
      scopes,
      mode: 'test',
    });
    issued.push(key);
    return { key, id: record.id };
  };
  const own = svc.organizationId;
  const other = await createOrganization(db, 'Other Clinic');
  const disabled = await createOrganization(db, 'Disabled Clinic');
  const only = {} as Record<Scope, string>;
  const without = {} as Record<Scope, string>;
  for (const scope of SCOPES) {
    only[scope] = (await issue(own, [scope])).key;
    without[scope] = (
      await issue(
        own,
        SCOPES.filter((s) => s !== scope),
      )
    ).key;
  }
  const revoked = await issue(own, [...SCOPES]);
  const owner = (await issue(own, [...SCOPES])).key;
  const keys: Keys = {
    owner,
    only,
    without,
    revoked: revoked.key,
    other: (await issue(other.id, [...SCOPES])).key,
    disabled: (await issue(disabled.id, [...SCOPES])).key,
    unknown: `elig_test_${base62(40)}`,
    tampered: owner.slice(0, -1) + (owner.endsWith('a') ? 'b' : 'a'),
  };
  await accessChange(db, () => setEligibilityEnabled(db, disabled.id, false));
  await revoke(svc, routes, revoked);

  const owned = new Set<string>();
  const shared = new Map<string, Promise<string>>();
  const bodyOf = (route: CoveredRoute) => {
    const sample = samples.bodies[route.operationId];
    if (!sample) {
      throw new Error(
        `no sample body for ${route.operationId} (${route.method} ${route.path}): add one to the security samples`,
      );
    }
    return sample();
  };
  const create = async (route: CoveredRoute) => {
    const creator = creatorOf(route, routes);
    const res = await send(svc.url, creator, { authorization: `Key ${keys.owner}`, body: bodyOf(creator) });
    assert.equal(res.status, creator.success, `${creator.method} ${creator.path}: ${res.text}`);
    assert.equal(typeof res.body.id, 'string', `${creator.method} ${creator.path} answers an id`);
    owned.add(res.body.id);
    return res.body.id as string;
  };
  const context: SecurityContext = {
    url: svc.url,
    keys,
    routes,
    secrets: [...samples.phi, ...issued, keys.unknown, keys.tampered, own],
    owned,
    bodyOf,
    async resourceOf(route) {
      const collection = creatorOf(route, routes).path;
      let id = shared.get(collection);
      if (!id) {
        id = create(route);
        shared.set(collection, id);
      }
      return ready(route, await id);
    },
    async freshResource(route) {
      const id = await ready(route, await create(route));
      await samples.ready?.[route.operationId]?.(id);
      return id;
    },
  };
  /** For a resource another operation makes (MADE_BY): waits until the owner can read it. */
  const ready = async (route: CoveredRoute, id: string) => {
    if (!MADE_BY[collectionOf(route)]) return id;
    const read = routes.find((r) => r.method === 'GET' && r.path === route.path)!;
    await eventually(
      async () =>
        (await send(svc.url, read, { authorization: `Key ${keys.owner}`, path: pathWith(read, id) }))
          .status === read.success || undefined,
      { timeoutMs: 20_000, what: `${read.path} of ${id} readable` },
    );
    return id;
  };
  // Every collection has a resource before any case runs, so list answers have something to leak.
  for (const route of routes) if (route.params.length) await context.resourceOf(route);
  return context;
}

/**
 * Revokes a key that has just been used (so the API has it cached) and waits for the revocation's own
 * notification to reach this process: after that, only a cache that ignores revocations would let it in.
 */
async function revoke(
  svc: TestService,
  routes: CoveredRoute[],
  { key, id }: { key: string; id: string },
): Promise<void> {
  const db = svc.service.store.db;
  const warm = routes.find((r) => r.method === 'GET' && !r.params.length);
  if (warm) {
    const res = await send(svc.url, warm, { authorization: `Key ${key}` });
    assert.equal(res.status, warm.success, `the key to revoke works first: ${res.text}`);
  }
  await accessChange(db, async () => assert.ok(await revokeApiKey(db, svc.organizationId, id)));
}

/** Runs `change` and resolves once its own notification to the key caches has reached this process. */
async function accessChange(db: Db, change: () => Promise<void>): Promise<void> {
  let heard!: () => void;
  const arrived = new Promise<void>((resolve) => {
    heard = resolve;
  });
  const unlisten = await db.listen(KEYS_CHANNEL, () => heard());
  try {
    await change();
    await arrived;
  } finally {
    await unlisten();
  }
}

/**
 * Collections whose resources another operation makes: a CoverageEligibilityResponse is the answer to the
 * CoverageEligibilityRequest of the same id, once its check is finished (`readyOf` waits for it).
 */
const MADE_BY: Record<string, string> = {
  '/fhir/R4/CoverageEligibilityResponse': '/fhir/R4/CoverageEligibilityRequest',
};

/** The collection a path parameter names: `/x` for `/x/{id}/...`. */
function collectionOf(route: CoveredRoute): string {
  return route.path.slice(0, route.path.indexOf(`/{${route.params[0]}}`));
}

/** The create operation of the collection a path parameter names: `POST /x` for `/x/{id}/...`. */
function creatorOf(route: CoveredRoute, routes: CoveredRoute[]): CoveredRoute {
  if (route.params.length !== 1) {
    throw new Error(
      `${route.method} ${route.path}: teach the security cases to fill ${route.params.length} params`,
    );
  }
  const named = collectionOf(route);
  const collection = MADE_BY[named] ?? named;
  const creator = routes.find((r) => r.method === 'POST' && r.path === collection);
  if (!creator) {
    throw new Error(
      `${route.method} ${route.path}: no POST ${collection} makes its {${route.params[0]}}; teach the security cases how`,
    );
  }
  return creator;
}

/** `path` with its parameter filled. */
export function pathWith(route: CoveredRoute, id: string): string {
  return route.path.replace(`{${route.params[0]}}`, encodeURIComponent(id));
}

/** An id of the same form as `id` that names nothing: its last character changed. */
export function missingIdLike(id: string): string {
  const last = id.at(-1)!;
  return id.slice(0, -1) + (last === '0' ? '1' : '0');
}

interface SendOptions {
  authorization?: string;
  method?: string;
  path?: string;
  /** Defaults to none; pass the route's sample body where it takes one. */
  body?: unknown;
  headers?: Record<string, string>;
}

export async function send(url: string, route: CoveredRoute, options: SendOptions = {}): Promise<Answer> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  const res = await fetch(url + (options.path ?? route.path), {
    method: options.method ?? route.method,
    headers: {
      ...(options.authorization !== undefined ? { authorization: options.authorization } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    body,
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, headers: res.headers, text, body: parsed };
}

function base62(length: number): string {
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  return [...randomBytes(length)].map((b) => alphabet[b % 62]).join('');
}

export function idempotencyKey(): string {
  return `security-${randomUUID()}`;
}
