/**
 * Liveness (`/healthz`: the process answers) and readiness (`/readyz`: the database answers and can write,
 * within DB_REQUEST_BUDGET_MS; see src/store/readiness.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { PayerProblem } from '../../payers/health.ts';
import type { Readiness } from '../../store/readiness.ts';
import { unavailable } from '../errors.ts';

const NOT_READY: Record<Exclude<Readiness, { ready: true }>['reason'], string> = {
  unreachable: 'Database not reachable.',
  timeout: 'Database did not answer in time.',
  'disk-full': 'Database cannot write: disk full.',
  resources: 'Database out of resources (memory, connections or disk).',
  'read-only': 'Database cannot write: read-only.',
  storage: 'Database storage failed.',
  failed: 'Database probe failed.',
};

export interface HealthRouteOptions {
  readiness: () => Promise<Readiness>;
  /** Payers refusing our credentials, listed in the ready answer (src/payers/health.ts). */
  payerProblems?: () => PayerProblem[];
}

export const healthRoutes: FastifyPluginAsync<HealthRouteOptions> = async (
  app,
  { readiness, payerProblems = () => [] },
) => {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async () => {
    const state = await readiness();
    if (!state.ready) throw unavailable(NOT_READY[state.reason]);
    const payers = payerProblems();
    return payers.length ? { status: 'ready', payers } : { status: 'ready' };
  });
};
