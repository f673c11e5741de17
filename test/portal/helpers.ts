/**
 * The real service for portal tests: store, check worker and webhook dispatcher from `startService`
 * (worker role), first-start bootstrap, and the HTTP app built with `buildApp` + `app.register(portalPlugin)` exactly as
 * the composition root does, listening on 127.0.0.1. Plus a small browser-like client: a cookie jar,
 * form posts, no automatic redirects.
 */
import { rmSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/api/app.ts';
import type { Config } from '../../src/config.ts';
import type { PortalDeps } from '../../src/portal/context.ts';
import { PORTAL_PREFIX, portalPlugin } from '../../src/portal/index.ts';
import { type Service, startService, VERSION } from '../../src/server.ts';
import { bootstrapIfEmpty } from '../../src/tenancy/bootstrap.ts';
import { eventually } from '../helpers/eventually.ts';
import { dropTestSchema, LogCapture, testConfig } from '../helpers/service.ts';

export interface PortalHarness {
  service: Service;
  config: Config;
  logs: LogCapture;
  url: string;
  app: FastifyInstance;
  apiKey: string;
  organizationId: string;
  ownerEmail: string;
  /** `/portal/login/<token>` printed at first start. */
  loginPath: string;
  /** Another app on the same store with other portal settings (e.g. no private webhooks, trusted proxies). */
  listenPortal(
    overrides?: Partial<PortalDeps>,
    app?: { trustedProxies?: string[] },
  ): Promise<{ url: string; close(): Promise<void> }>;
  stop(): Promise<void>;
}

export async function startPortal(
  options: { config?: Partial<Config>; portal?: Partial<PortalDeps> } = {},
): Promise<PortalHarness> {
  const config = testConfig(options.config);
  const logs = new LogCapture();
  const service = await startService(config, {
    roles: { api: false, worker: true },
    logDestination: logs,
    webhookScheduleScale: 0.001,
  });
  const boot = await bootstrapIfEmpty(service.store.db, service.keys);
  if (!boot) throw new Error('portal harness expected an empty store');
  const closers: (() => Promise<void>)[] = [];

  const listenPortal = async (
    overrides: Partial<PortalDeps> = {},
    appOptions: { trustedProxies?: string[] } = {},
  ) => {
    let url = '';
    const { app, auth } = await buildApp({
      db: service.store.db,
      log: service.log,
      apiKeyPepper: service.keys.apiKeyPepper,
      version: VERSION,
      settings: { ...config, trustedProxies: appOptions.trustedProxies ?? config.trustedProxies },
    });
    app.register(portalPlugin, {
      prefix: PORTAL_PREFIX,
      db: service.store.db,
      tokenKey: service.keys.tokenKey,
      signInThrottleKey: service.keys.signInThrottleKey,
      apiKeyPepper: service.keys.apiKeyPepper,
      box: service.box,
      allowPrivateWebhooks: config.allowPrivateWebhooks,
      payers: service.directory,
      secureCookies: false,
      listenUrl: () => url,
      ...overrides,
    });
    const stopAuth = await auth.start();
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    url = `http://127.0.0.1:${port}`;
    const close = async () => {
      await app.close();
      await stopAuth();
    };
    closers.push(close);
    return { url, app, close };
  };

  const main = await listenPortal(options.portal);
  return {
    service,
    config,
    logs,
    url: main.url,
    app: main.app,
    apiKey: boot.apiKey,
    organizationId: boot.organizationId,
    ownerEmail: boot.ownerEmail,
    loginPath: boot.loginPath,
    listenPortal,
    async stop() {
      for (const close of closers) await close().catch(() => {});
      await service.stop();
      await dropTestSchema(config);
      rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}

export interface PageResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Location header of a redirect. */
  location: string | null;
}

/** A cookie-keeping client that behaves like a browser without JavaScript. */
export class PortalClient {
  readonly cookies = new Map<string, string>();
  /** Raw Set-Cookie lines of the last response. */
  lastSetCookie: string[] = [];

  constructor(readonly base: string) {}

  private async send(path: string, init: RequestInit): Promise<PageResponse> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(this.base + path, { ...init, headers, redirect: 'manual' });
    this.lastSetCookie = res.headers.getSetCookie();
    for (const line of this.lastSetCookie) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attrs.some(
        (a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=thu, 01 jan 1970/i.test(a),
      );
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return {
      status: res.status,
      headers: res.headers,
      text: await res.text(),
      location: res.headers.get('location'),
    };
  }

  get(path: string): Promise<PageResponse> {
    return this.send(path, { method: 'GET' });
  }

  post(path: string, fields: Record<string, string | string[]>, headers: Record<string, string> = {}) {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(fields))
      for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
    return this.send(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: body.toString(),
    });
  }

  /** A `multipart/form-data` post (a file upload), as a browser sends one; fetch sets the boundary. */
  postMultipart(path: string, form: FormData, headers: Record<string, string> = {}) {
    return this.send(path, { method: 'POST', headers, body: form });
  }

  /** GETs a page, then posts a form to `action` with the page's CSRF token added. */
  async submit(pagePath: string, action: string, fields: Record<string, string | string[]>) {
    const page = await this.get(pagePath);
    return this.post(action, { ...fields, _csrf: csrfToken(page.text) });
  }
}

export function csrfToken(pageHtml: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(pageHtml);
  if (!m) throw new Error('page has no CSRF field');
  return m[1]!;
}

export const TEST_PASSWORD = 'correct horse battery staple';

/** Signs in through a one-time link, setting a password: the first-start flow. */
export async function signInWithLink(base: string, loginPath: string, password = TEST_PASSWORD) {
  const c = new PortalClient(base);
  const res = await c.submit(loginPath, loginPath, { password, confirm: password });
  if (res.status !== 303) throw new Error(`one-time link answered ${res.status}`);
  return c;
}

export async function signIn(base: string, email: string, password = TEST_PASSWORD) {
  const c = new PortalClient(base);
  const res = await c.submit('/portal/login', '/portal/login', { email, password });
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}`);
  return c;
}

/** Waits until a check leaves IN_PROGRESS (read through the store, as the portal does). */
export async function waitForCheck(h: PortalHarness, id: string, timeoutMs = 20_000): Promise<string> {
  return eventually(
    async () => {
      const { rows } = await h.service.store.db.query<{ status: string }>(
        'SELECT status FROM checks WHERE id = $1',
        [id],
      );
      if (!rows[0]) throw new Error('no such check');
      if (rows[0].status === 'IN_PROGRESS') throw new Error('still IN_PROGRESS');
      return rows[0].status;
    },
    { timeoutMs, intervalMs: 50, what: `check ${id} finishing` },
  );
}
