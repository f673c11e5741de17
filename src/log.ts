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
        err: (err: Error & { code?: string; statusCode?: number }) => ({
          type: err.name,
          code: err.code,
          statusCode: err.statusCode,
          // Messages of our own errors carry no PHI; stack traces are kept for operators.
          message: err.message,
          stack: err.stack,
        }),
      },
    },
    destination,
  );
}
