/**
 * Who may open a portal route: a route's `config.access` (default `user`), applied by the guard in index.ts
 * before the handler runs, and the route options of the settings pages only owners may open.
 */
import { IdParams } from './context.ts';

/** Who may open a route: anyone, any signed-in user, or an organization owner. */
export type Access = 'anonymous' | 'user' | 'owner';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
}

/** Route options of the pages only an organization's owners may open. */
export const ownerOnly = { config: { access: 'owner' as const } };
/** The same, for a page about one thing by its id (`/settings/team/:id/...`). */
export const ownerOnlyById = { ...ownerOnly, schema: { params: IdParams } };
