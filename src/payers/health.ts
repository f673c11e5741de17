/**
 * The payers part of /readyz: which payers refuse the service's credentials in this process. The instance
 * stays ready (restarting it cannot fix a password), but operators read the detail to know which
 * credential to renew. Ids, a fixed phrase and a time only: never a secret or a gateway's message.
 */
import type { PayerGuard } from './guard.ts';

export interface PayerProblem {
  payer: string;
  problem: 'authentication failed';
  since: string;
}

export function payerProblems(guard: PayerGuard | undefined): PayerProblem[] {
  return (guard?.authFailures() ?? []).map((f) => ({
    payer: f.payer,
    problem: 'authentication failed',
    since: f.since.toISOString(),
  }));
}
