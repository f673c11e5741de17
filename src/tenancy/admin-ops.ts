/**
 * Operator actions shared by the CLI and the server's local admin endpoint: the CLI runs them directly on
 * the store, or, when a server holds the PGlite directory, asks that server to run them. One table of
 * operations, so both paths behave the same.
 */
import type { Db } from '../store/db.ts';
import { listOrganizations, organizationExists } from '../store/organizations.ts';
import { listWebhookEvents } from '../webhooks/deliveries.ts';
import {
  getWebhookSettings,
  rollWebhookSecret,
  setWebhookSecret,
  setWebhookUrl,
} from '../webhooks/settings.ts';
import type { SecretBox } from '../webhooks/signing-secrets.ts';
import { createApiKey, parseScopes } from './api-keys.ts';
import type { ServiceKeys } from './master-secret.ts';
import { createOrganization } from './organizations.ts';
import { createPortalUser, issuePasswordResetLink, PortalUserError, type Role } from './users.ts';

export class AdminInputError extends Error {
  override name = 'AdminInputError';
}

export interface AdminContext {
  db: Db;
  keys: ServiceKeys;
  box: SecretBox;
  allowPrivateWebhooks: boolean;
}

type Args = Record<string, unknown>;
export type AdminOp = (ctx: AdminContext, args: Args) => Promise<unknown>;

function str(args: Args, name: string, required = true): string | undefined {
  const v = args[name];
  if (v === undefined || v === null || v === '') {
    if (required) throw new AdminInputError(`--${name} is required`);
    return undefined;
  }
  if (typeof v !== 'string') throw new AdminInputError(`--${name} must be a string`);
  return v;
}

async function requireOrg(db: Db, id: string): Promise<void> {
  if (!(await organizationExists(db, id))) throw new AdminInputError(`no organization with id ${id}`);
}

const ADMIN_OPS: Record<string, AdminOp> = {
  async 'org.create'({ db }, args) {
    const org = await createOrganization(db, str(args, 'name')!);
    return { id: org.id, name: org.name };
  },
  async 'org.list'({ db }) {
    return listOrganizations(db);
  },
  async 'key.create'({ db, keys }, args) {
    const organizationId = str(args, 'org')!;
    await requireOrg(db, organizationId);
    let scopes: ReturnType<typeof parseScopes>;
    try {
      scopes = parseScopes(str(args, 'scopes', false));
    } catch (err) {
      throw new AdminInputError((err as Error).message);
    }
    const mode = str(args, 'mode', false) ?? 'test';
    if (mode !== 'test' && mode !== 'live') throw new AdminInputError('--mode must be test or live');
    const name = str(args, 'name')!;
    if (name.length > 100) throw new AdminInputError('--name must be at most 100 characters');
    const { key, record } = await createApiKey(db, keys.apiKeyPepper, { organizationId, name, scopes, mode });
    return { key, id: record.id, prefix: record.prefix, scopes: record.scopes };
  },
};

async function webhookShow(ctx: AdminContext, org: string) {
  const s = await getWebhookSettings(ctx.db, ctx.box, org);
  if (!s) throw new AdminInputError(`no organization with id ${org}`);
  return s;
}

Object.assign(ADMIN_OPS, {
  async 'webhook.set'(ctx: AdminContext, args: Args) {
    const org = str(args, 'org')!;
    await requireOrg(ctx.db, org);
    const url = str(args, 'url', false);
    if (url !== undefined) {
      const set = await setWebhookUrl(ctx.db, org, url === 'none' ? null : url, {
        allowPrivate: ctx.allowPrivateWebhooks,
      });
      if (!set.ok) throw new AdminInputError(set.reason);
    }
    const secret = str(args, 'secret', false);
    if (secret !== undefined || args.generateSecret === true) {
      const set = await setWebhookSecret(ctx.db, ctx.box, org, secret ?? { generate: true });
      if (!set.ok) throw new AdminInputError(set.reason);
    }
    return webhookShow(ctx, org);
  },
  async 'webhook.show'(ctx: AdminContext, args: Args) {
    return webhookShow(ctx, str(args, 'org')!);
  },
  async 'webhook.roll-secret'(ctx: AdminContext, args: Args) {
    const org = str(args, 'org')!;
    await requireOrg(ctx.db, org);
    const rolled = await rollWebhookSecret(ctx.db, ctx.box, org);
    if (!rolled.ok) throw new AdminInputError(rolled.reason);
    return webhookShow(ctx, org);
  },
  async 'webhook.deliveries'(ctx: AdminContext, args: Args) {
    const org = str(args, 'org')!;
    await requireOrg(ctx.db, org);
    return listWebhookEvents(ctx.db, org, { limit: 50 });
  },
} satisfies Record<string, AdminOp>);

Object.assign(ADMIN_OPS, {
  async 'user.create'(ctx: AdminContext, args: Args) {
    const role = str(args, 'role', false) ?? 'member';
    try {
      const user = await createPortalUser(ctx.db, {
        organizationId: str(args, 'org')!,
        email: str(args, 'email')!,
        role: role as Role,
      });
      const link = await issuePasswordResetLink(ctx.db, ctx.keys.tokenKey, user.email);
      return {
        id: user.id,
        email: user.email,
        role: user.role,
        loginPath: link.loginPath,
        expiresAt: link.expiresAt,
      };
    } catch (err) {
      if (err instanceof PortalUserError) throw new AdminInputError(err.message);
      throw err;
    }
  },
  async 'user.reset-password'(ctx: AdminContext, args: Args) {
    try {
      const link = await issuePasswordResetLink(ctx.db, ctx.keys.tokenKey, str(args, 'email')!);
      return { email: link.user.email, loginPath: link.loginPath, expiresAt: link.expiresAt };
    } catch (err) {
      if (err instanceof PortalUserError) throw new AdminInputError(err.message);
      throw err;
    }
  },
} satisfies Record<string, AdminOp>);

export async function runAdminOp(ctx: AdminContext, op: string, args: Args): Promise<unknown> {
  const fn = Object.hasOwn(ADMIN_OPS, op) ? ADMIN_OPS[op] : undefined;
  if (!fn) throw new AdminInputError(`unknown operation ${op}`);
  return fn(ctx, args);
}
