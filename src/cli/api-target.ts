/**
 * Where the CLI's API commands (`elig batch`, `elig monitor`) send their requests and with which key:
 * `--url`, `ELIG_API_URL`, the server running on DATA_DIR, or the local default port; `--key` or
 * `ELIG_API_KEY`. And the one way they call it (apiCaller).
 */
import type { Config } from '../config.ts';
import { readLock } from '../store/datadir-lock.ts';
import { CliError, type OptionSpec } from './args.ts';

export interface ApiTargetArgs {
  key?: string;
  url?: string;
}
export type ApiArgs = ApiTargetArgs;

/** The options every API command takes. */
export const API_OPTIONS: Record<string, OptionSpec> = {
  key: { type: 'string', value: 'KEY', description: 'API key; default ELIG_API_KEY' },
  url: {
    type: 'string',
    value: 'URL',
    description: "the API's base URL; default ELIG_API_URL, or the server running on DATA_DIR",
  },
};

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function apiTarget(
  config: Config,
  args: ApiTargetArgs,
  env: NodeJS.ProcessEnv,
): { base: string; headers: Record<string, string> } {
  const key = args.key ?? env.ELIG_API_KEY;
  if (!key)
    throw new CliError(
      'No API key: pass --key or set ELIG_API_KEY (the test key printed at first start, or `elig key create`).',
    );
  const base =
    args.url ?? env.ELIG_API_URL ?? readLock(config.dataDir)?.adminUrl ?? `http://127.0.0.1:${config.port}`;
  return { base, headers: { authorization: `Key ${key}`, 'content-type': 'application/json' } };
}

/** What a call sends besides the path: a JSON body already serialised, extra headers. */
export interface ApiCall {
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  body?: string;
  headers?: Record<string, string>;
}

/** The longest Retry-After a call waits out; a longer one (a monitor limit: 1 h) is reported instead. */
const MAX_RETRY_WAIT_SECONDS = 60;

/**
 * A function making one API call and answering its JSON body (`{}` for an empty one, a 204); a 429 is waited
 * out as its Retry-After says (up to a minute), and any other error status is a CliError with the API's code
 * and message.
 */
export function apiCaller(config: Config, args: ApiArgs, env = process.env) {
  const { base, headers } = apiTarget(config, args, env);
  // Content-Type only with a body: the API refuses an empty body that claims to be JSON (a DELETE).
  const { 'content-type': _json, ...bare } = headers;
  return async function call(path: string, init: ApiCall = {}): Promise<unknown> {
    const sent = { ...(init.body === undefined ? bare : headers), ...init.headers };
    for (;;) {
      const res = await fetch(base + path, { method: init.method, body: init.body, headers: sent }).catch(
        (err: Error) => {
          throw new CliError(
            `Could not reach the API at ${base}: ${err.message}. Is \`elig serve\` running?`,
          );
        },
      );
      const body = (await res.json().catch(() => ({}))) as { code?: string; message?: string };
      const retryAfter = Number(res.headers.get('retry-after') ?? 1);
      if (res.status === 429 && retryAfter <= MAX_RETRY_WAIT_SECONDS) {
        await sleep(retryAfter * 1000);
        continue;
      }
      if (!res.ok)
        throw new CliError(`API answered ${res.status} ${body.code ?? ''}: ${body.message ?? ''}`.trim());
      return body;
    }
  };
}
