/**
 * Structured logs with pino. PHI never reaches a log line: callers log ids, codes and counts only, and the
 * serializers below drop request bodies, headers and query strings so a careless `log.info({ req })` cannot
 * leak a member id or a key.
 */
import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'eligibility' },
      redact: {
        paths: ['req.headers', 'headers', 'authorization', 'body', 'request', 'x12', 'subscriber', 'result'],
        censor: '[redacted]',
      },
      serializers: {
        req: (req: { method?: string; routeOptions?: { url?: string }; url?: string; id?: string }) => ({
          method: req.method,
          route:
            req.routeOptions?.url ?? req.url?.split('?')[0]?.replace(/\/[0-9a-f-]{36}(?=\/|$)/gi, '/:id'),
          id: req.id,
        }),
        res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
        err: serializeError,
      },
    },
    destination,
  );
}

/**
 * Errors the service raises itself: their messages name fields, codes and counts, never values. Any other
 * error's message may quote what it choked on (V8's JSON.parse and PostgreSQL's "invalid input syntax"
 * both do), so for those only the class, the code and the stack frames are kept.
 */
const OWN_ERRORS = new Set([
  'AdminInputError',
  'ApiError',
  'CliError',
  'ConfigError',
  'DataDirLockedError',
  'DatabaseUnavailableError',
  'PayerAuthenticationError',
  'PermanentPayerError',
  'PortalUserError',
  'RefusedAddressError',
  'SecretBoxError',
  'TransientPayerError',
  'X12BuildError',
  'X12Error',
]);
/** Node's system errors (`connect ECONNREFUSED 127.0.0.1:5432`) name addresses and calls, not data. */
const SYSTEM_ERROR_CODE = /^E[A-Z0-9_]+$/;

export function serializeError(err: Error & { code?: string; statusCode?: number }) {
  const trusted = OWN_ERRORS.has(err.name) || SYSTEM_ERROR_CODE.test(err.code ?? '');
  return {
    type: err.name,
    code: err.code,
    statusCode: err.statusCode,
    message: trusted ? err.message : undefined,
    stack: trusted ? err.stack : framesOf(err.stack),
  };
}

/** The `at …` lines of a stack, without the message lines above them. */
function framesOf(stack: string | undefined): string | undefined {
  return stack
    ?.split('\n')
    .filter((line) => line.startsWith('    at '))
    .join('\n');
}
