/** Liveness (`/healthz`: the process answers) and readiness (`/readyz`: the database answers). */
import type { FastifyInstance } from 'fastify';
import type { PayerProblem } from '../../payers/health.ts';

/** `payerProblems`: payers refusing our credentials, listed in the ready answer (src/payers/health.ts). */
export function registerHealth(app: FastifyInstance, payerProblems: () => PayerProblem[] = () => []): void {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    try {
      await Promise.race([
        app.db.query('SELECT 1'),
        new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000).unref()),
      ]);
      const payers = payerProblems();
      return payers.length ? { status: 'ready', payers } : { status: 'ready' };
    } catch {
      return reply.code(503).send({ code: 'InternalFailureException', message: 'Database not reachable.' });
    }
  });
}
