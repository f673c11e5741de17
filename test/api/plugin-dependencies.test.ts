/**
 * Plugins name the decorators they read (fastify-plugin metadata), so one registered before the plugin that
 * adds them stops the start with Fastify's FST_ERR_PLUGIN_NOT_PRESENT_IN_INSTANCE, naming the decorator and
 * the plugin, instead of an `undefined` at the first request. The same plugins start when the order is right.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ApiKeyAuthenticator } from '../../src/api/auth.ts';
import { RateLimiter } from '../../src/api/rate-limit.ts';
import { adminRoutes } from '../../src/api/routes/admin.ts';
import { monitorListRoute } from '../../src/api/routes/eligibility_monitor_list.ts';
import { submitRoute } from '../../src/api/routes/eligibility_submit.ts';
import { PORTAL_PREFIX, portalPlugin } from '../../src/portal/index.ts';
import type { Db } from '../../src/store/db.ts';
import { deriveServiceKeys } from '../../src/tenancy/master-secret.ts';
import { createSecretBox } from '../../src/webhooks/signing-secrets.ts';

/** Nothing here runs a statement: registration only declares routes. */
const refuse = async (): Promise<never> => {
  throw new Error('no statement runs at registration');
};
const db: Db = {
  kind: 'pglite',
  query: refuse,
  transaction: refuse,
  listen: refuse,
  notify: refuse,
  storageFault: refuse,
  close: refuse,
};
const keys = deriveServiceKeys(randomBytes(32).toString('base64'));
const box = createSecretBox(keys.secretBoxKey);
const keyRoute = {
  auth: new ApiKeyAuthenticator(db, keys.apiKeyPepper),
  limiter: new RateLimiter({ ratePerSecond: 1, burst: 1 }),
};

/** What buildApp decorates the app with, as a plugin of its own so that it can come too late. */
const services = fp(
  async (app: FastifyInstance) => {
    app.decorate('db', db);
    app.decorate('checksNotifier', { notify() {}, flush: async () => {} });
  },
  { name: 'services' },
);

const plugins: { name: string; missing: string; register(app: FastifyInstance): void }[] = [
  { name: 'eligibility-submit', missing: 'db', register: (app) => app.register(submitRoute, keyRoute) },
  {
    name: 'eligibility-monitor-list',
    missing: 'db',
    register: (app) => app.register(monitorListRoute, keyRoute),
  },
  {
    name: 'admin-routes',
    missing: 'db',
    register: (app) => app.register(adminRoutes, { token: 'test', keys, box, allowPrivateWebhooks: false }),
  },
  {
    name: 'portal',
    missing: 'checksNotifier',
    register: (app) =>
      app.register(portalPlugin, {
        prefix: PORTAL_PREFIX,
        db,
        tokenKey: keys.tokenKey,
        signInThrottleKey: keys.signInThrottleKey,
        apiKeyPepper: keys.apiKeyPepper,
        box,
        allowPrivateWebhooks: false,
        secureCookies: false,
        listenUrl: () => 'http://127.0.0.1',
      }),
  },
];

for (const plugin of plugins) {
  test(`${plugin.name} registered before the app's decorators fails at start, naming '${plugin.missing}'`, async () => {
    const app = Fastify();
    plugin.register(app);
    app.register(services);
    try {
      await assert.rejects(
        async () => {
          await app.ready();
        },
        (err: Error & { code?: string }) => {
          assert.equal(err.code, 'FST_ERR_PLUGIN_NOT_PRESENT_IN_INSTANCE');
          assert.match(err.message, new RegExp(`'${plugin.missing}'.*'${plugin.name}'`));
          return true;
        },
      );
    } finally {
      await app.close().catch(() => {});
    }
  });

  test(`${plugin.name} registered after the app's decorators starts`, async () => {
    const app = Fastify();
    app.register(services);
    plugin.register(app);
    try {
      await app.ready();
    } finally {
      await app.close();
    }
  });
}
