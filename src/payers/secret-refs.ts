/**
 * Secrets in the payer directory are references (`{"env": "NAME"}`, `{"file": "/path"}`), resolved once at
 * start so a missing credential stops the process before it takes work, not at the first check hours later.
 * Values live only in the returned map: they are never stored, logged or written into an error. A problem
 * names the reference (the variable or the path) and where it was written, never what it resolved to.
 */
import { readFileSync } from 'node:fs';
import type { SecretRef } from './directory-schema.ts';

export interface SecretSources {
  env: NodeJS.ProcessEnv;
  /** Reads a secret file (tests inject failures); default: `readFileSync(path, 'utf8')`. */
  readFile?: (path: string) => string;
}

export type SecretResolution = { ok: true; value: string } | { ok: false; problem: string };

export function resolveSecretRef(ref: SecretRef, sources: SecretSources): SecretResolution {
  if ('env' in ref) {
    const value = sources.env[ref.env];
    if (value === undefined) return { ok: false, problem: `environment variable ${ref.env} is not set` };
    if (value === '') return { ok: false, problem: `environment variable ${ref.env} is empty` };
    return { ok: true, value };
  }
  let text: string;
  try {
    text = (sources.readFile ?? ((path) => readFileSync(path, 'utf8')))(ref.file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    return { ok: false, problem: `file ${ref.file} could not be read (${code})` };
  }
  // Files written by `echo` or a secrets manager end in a newline that is not part of the secret.
  const value = text.replace(/\r?\n$/, '');
  if (!value) return { ok: false, problem: `file ${ref.file} is empty` };
  return { ok: true, value };
}

/** True for the shape the schema allows as a secret reference: exactly one key, `env` or `file`. */
export function isSecretRef(value: unknown): value is SecretRef {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  if (keys.length !== 1) return false;
  const v = (value as Record<string, unknown>)[keys[0]!];
  return (keys[0] === 'env' || keys[0] === 'file') && typeof v === 'string';
}

/** `env:NAME` or `file:/path`: a reference by what it names, so a copied config object still finds it. */
export function secretRefKey(ref: SecretRef): string {
  return 'env' in ref ? `env:${ref.env}` : `file:${ref.file}`;
}

/**
 * Every secret reference inside a (validated) connector config, each resolved, keyed by `secretRefKey`.
 * Problems are named by path (`payers[0].connector.password: environment variable X is not set`).
 */
export function resolveSecretsIn(
  config: unknown,
  path: string,
  sources: SecretSources,
): { secrets: Map<string, string>; problems: string[] } {
  const secrets = new Map<string, string>();
  const problems: string[] = [];
  const visit = (value: unknown, at: string) => {
    if (isSecretRef(value)) {
      const r = resolveSecretRef(value, sources);
      if (r.ok) secrets.set(secretRefKey(value), r.value);
      else problems.push(`${at}: ${r.problem}`);
      return;
    }
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [k, v] of Object.entries(value)) visit(v, `${at}.${k}`);
    }
  };
  visit(config, path);
  return { secrets, problems };
}
