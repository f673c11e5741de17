/**
 * Which methods a path answers to, for the 405 of a known path asked with a method it does not serve
 * (`POST /api/eligibility/{id}/status`): the answer names the path's methods in `Allow` (RFC 9110 15.5.6)
 * instead of saying the path does not exist. Routes are collected as they are registered.
 */
import type { FastifyInstance } from 'fastify';

interface RoutePattern {
  /** The registered path with its parameters written `{name}`, as the API reference writes them. */
  path: string;
  match: RegExp;
  methods: Set<string>;
}

/** `/api/eligibility/:id/status` → a pattern that matches one path segment per parameter. */
function patternOf(url: string): RegExp {
  const escaped = url
    .split('/')
    .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${escaped}/?$`);
}

export interface AllowedMethods {
  /** The methods `path` is served with and its registered form; undefined when no route has that path. */
  of(path: string): { methods: string[]; path: string } | undefined;
}

/** Watches route registration on `app` (call before any route is registered). */
export function trackAllowedMethods(app: FastifyInstance): AllowedMethods {
  const routes = new Map<string, RoutePattern>();
  app.addHook('onRoute', (route) => {
    const url = route.url ?? route.path;
    if (!url || url.includes('*')) return;
    let known = routes.get(url);
    if (!known) {
      known = { path: url.replace(/:(\w+)/g, '{$1}'), match: patternOf(url), methods: new Set() };
      routes.set(url, known);
    }
    for (const method of [route.method].flat()) known.methods.add(method);
  });
  return {
    of(path) {
      const methods = new Set<string>();
      let registered: string | undefined;
      for (const route of routes.values()) {
        if (!route.match.test(path)) continue;
        registered ??= route.path;
        for (const m of route.methods) methods.add(m);
      }
      return registered ? { methods: [...methods].sort(), path: registered } : undefined;
    },
  };
}
