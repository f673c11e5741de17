/**
 * The routes an app serves, read from the app itself: Fastify's route tree (`printRoutes`) and the OpenAPI
 * document it serves (`/openapi.json`). `classifyRoutes` sorts every served route into covered (an
 * authenticated, documented operation of a family: `/api` or `/fhir`), exempt (listed by the caller with a
 * reason) or uncovered, which the security tests fail on: a route is never skipped silently.
 */
import type { FastifyInstance } from 'fastify';
import { SCOPES, type Scope } from '../../src/tenancy/api-keys.ts';

/**
 * The families of key-authenticated routes, by path prefix. A route under one of them must be a documented
 * operation with `ApiKeyAuth` security; each family answers refusals in its own body (refusal-bodies.ts).
 * A new family (a new prefix, a new error body) is a line here and a checker in `REFUSAL_BODIES`.
 */
export const FAMILY_PREFIXES = { api: '/api/', fhir: '/fhir/' } as const;
export type Family = keyof typeof FAMILY_PREFIXES;

/** One method of one path, the path written with `{param}` as the document writes it. */
export interface ServedRoute {
  method: string;
  path: string;
}

/** Every method and path the app serves (HEAD included), read from Fastify's route tree. */
export function servedRoutes(app: FastifyInstance): ServedRoute[] {
  const tree = app.printRoutes({ commonPrefix: false });
  const stack: string[] = [];
  const routes: ServedRoute[] = [];
  for (const line of tree.split('\n')) {
    const m = /^([│├└─\s]*)(\S.*?) \(([A-Z, ]+)\)$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    stack.length = depth;
    stack.push(m[2]!);
    const path = stack.join('').replace(/:(\w+)/g, '{$1}');
    for (const method of m[3]!.split(', ')) routes.push({ method, path });
  }
  return routes;
}

export interface RouteTable {
  served: ServedRoute[];
  /** The OpenAPI document the app serves. */
  doc: any;
}

/** The route tree and the served document of `app` (a started service's, or one built in a test). */
export async function readRouteTable(app: FastifyInstance): Promise<RouteTable> {
  const res = await app.inject({ method: 'GET', url: '/openapi.json' });
  if (res.statusCode !== 200) throw new Error(`/openapi.json answered ${res.statusCode}`);
  return { served: servedRoutes(app), doc: res.json() };
}

/** A route that is not key-authenticated by design: one path, or every path under a prefix, and why. */
export interface ExemptionRule {
  path?: string;
  prefix?: string;
  reason: string;
}

/** A documented, key-authenticated operation: everything the generated cases need to know about it. */
export interface CoveredRoute {
  method: string;
  path: string;
  family: Family;
  operationId: string;
  /** The scope a key needs (see `scopeOf`). */
  scope: Scope;
  /** Path parameters, in order. */
  params: string[];
  /** Documented query parameters, with their schemas. */
  query: Record<string, any>;
  hasBody: boolean;
  /** It reads an `Idempotency-Key` header (a create that can be replayed). */
  idempotent: boolean;
  /** Its documented success status (the first 2xx). */
  success: number;
  /** Fastify also serves it as HEAD (the automatic HEAD of a GET). */
  hasHead: boolean;
}

export interface Classification<E extends ExemptionRule> {
  covered: CoveredRoute[];
  exempt: { route: ServedRoute; exemption: E }[];
  uncovered: { route: ServedRoute; why: string }[];
  /** Exemptions that match no served route: stale, so they fail too. */
  unused: E[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

export function familyOf(path: string): Family | undefined {
  return (Object.keys(FAMILY_PREFIXES) as Family[]).find((f) => path.startsWith(FAMILY_PREFIXES[f]));
}

/**
 * The scope an operation needs: the one its `ApiKeyAuth` requirement names (OpenAPI 3.1 lets an apiKey
 * requirement list role names), else the documented rule (docs/api.md, 403): `eligibility:read` to read
 * (GET), `eligibility:write` for anything else. The generated cases prove it both ways per route: a key
 * with only this scope is served, a key with every other scope is refused.
 */
export function scopeOf(operation: any, method: string): Scope | string {
  const named: string[] = (operation.security ?? []).flatMap((r: any) => r.ApiKeyAuth ?? []);
  if (named.length > 1) return `several scopes (${named.join(', ')}): teach the security cases about it`;
  const scope = named[0] ?? (method === 'GET' ? 'eligibility:read' : 'eligibility:write');
  return (SCOPES as readonly string[]).includes(scope) ? (scope as Scope) : `unknown scope ${scope}`;
}

function matches(rule: ExemptionRule, path: string): boolean {
  return rule.path === path || (rule.prefix !== undefined && path.startsWith(rule.prefix));
}

/** Why `operation` cannot be covered as it is documented, or its covered form. */
function cover(route: ServedRoute, family: Family, operation: any): CoveredRoute | string {
  if (!(operation.security ?? []).some((r: any) => r.ApiKeyAuth)) {
    return 'documented without ApiKeyAuth security: declare it (`security: [{ ApiKeyAuth: [] }]`) or exempt it';
  }
  const scope = scopeOf(operation, route.method);
  if (!(SCOPES as readonly string[]).includes(scope)) return scope;
  const statuses = Object.keys(operation.responses ?? {}).map(Number);
  const success = statuses.filter((s) => s >= 200 && s < 300).sort((a, b) => a - b)[0];
  if (success === undefined) return 'documents no 2xx answer';
  const params: string[] = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const refusals = params.length ? [401, 403, 404] : [401, 403];
  const undocumented = refusals.filter((s) => !statuses.includes(s));
  if (undocumented.length) return `does not document ${undocumented.join(', ')}`;
  const parameters: any[] = operation.parameters ?? [];
  return {
    method: route.method,
    path: route.path,
    family,
    operationId: operation.operationId ?? `${route.method} ${route.path}`,
    scope: scope as Scope,
    params,
    query: Object.fromEntries(
      parameters.filter((p) => p.in === 'query').map((p) => [p.name, p.schema ?? {}]),
    ),
    hasBody: operation.requestBody !== undefined,
    idempotent: parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key'),
    success,
    hasHead: false,
  };
}

/**
 * Sorts every served route, and every documented operation, into covered, exempt or uncovered. An
 * automatic HEAD goes with its GET; anything served outside the families and not exempt is uncovered, as is
 * a family route that is undocumented, documented without security, or documented but not served.
 */
export function classifyRoutes<E extends ExemptionRule>(
  table: RouteTable,
  exemptions: E[],
): Classification<E> {
  const result: Classification<E> = { covered: [], exempt: [], uncovered: [], unused: [] };
  const used = new Set<E>();
  const documented = new Map<string, any>();
  for (const [path, item] of Object.entries<any>(table.doc.paths ?? {})) {
    for (const m of METHODS) if (item[m]) documented.set(`${m.toUpperCase()} ${path}`, item[m]);
  }
  const served = new Set(table.served.map((r) => `${r.method} ${r.path}`));
  for (const route of table.served) {
    const exemption = exemptions.find((e) => matches(e, route.path));
    if (exemption) {
      used.add(exemption);
      result.exempt.push({ route, exemption });
      continue;
    }
    if (route.method === 'HEAD' && served.has(`GET ${route.path}`)) continue; // with its GET, below
    const family = familyOf(route.path);
    const operation = documented.get(`${route.method} ${route.path}`);
    const covered = !family
      ? `served outside ${Object.values(FAMILY_PREFIXES).join(' and ')}: exempt it with a reason, or serve it in a family`
      : !operation
        ? 'not in /openapi.json (undocumented, hidden or untagged)'
        : cover(route, family, operation);
    if (typeof covered === 'string') result.uncovered.push({ route, why: covered });
    else
      result.covered.push({
        ...covered,
        hasHead: route.method === 'GET' && served.has(`HEAD ${route.path}`),
      });
  }
  for (const key of documented.keys()) {
    if (served.has(key)) continue;
    const [method, path] = key.split(' ') as [string, string];
    result.uncovered.push({ route: { method, path }, why: 'documented but not served' });
  }
  result.unused = exemptions.filter((e) => !used.has(e));
  return result;
}
