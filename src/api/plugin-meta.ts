/**
 * What an encapsulated plugin needs from the instance it is registered on, checked by Fastify itself at
 * registration (`Symbol.for('plugin-meta')`, read in fastify/lib/plugin-utils.js): a missing decorator fails
 * the start with FST_ERR_PLUGIN_NOT_PRESENT_IN_INSTANCE naming it, instead of an `undefined` at the first
 * request. This is the metadata half of fastify-plugin without its skip-override: our plugins stay
 * encapsulated, so what they add (hooks, parsers, request decorators) never leaks into the rest of the app.
 */
export interface PluginMeta {
  /** Shown in Fastify's errors and in `app.printPlugins()`. */
  name: string;
  /** Decorators the plugin reads, which an ancestor must have added (`app.decorate`, `decorateRequest`). */
  decorators?: { fastify?: string[]; request?: string[]; reply?: string[] };
}

export function declarePlugin<P extends object>(plugin: P, meta: PluginMeta): P {
  return Object.assign(plugin, {
    [Symbol.for('plugin-meta')]: meta,
    [Symbol.for('fastify.display-name')]: meta.name,
  });
}
