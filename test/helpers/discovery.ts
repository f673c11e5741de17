/**
 * Insurance discovery in tests: a discovery request for a sandbox member (name and date of birth only),
 * and waiting for a discovery to complete through the API.
 */
import { eventually } from './eventually.ts';
import type { SandboxPerson } from './members.ts';
import { type Client, SANDBOX_PROVIDER } from './service.ts';

export function discoveryRequest(person: SandboxPerson, extra: object = {}) {
  const { firstName, lastName, dateOfBirth } = person;
  return { provider: SANDBOX_PROVIDER, patient: { firstName, lastName, dateOfBirth }, ...extra };
}

/** Polls `GET /api/eligibility/discovery/{id}` until it is COMPLETED; returns that body. */
export async function waitForDiscovery(c: Client, id: string, timeoutMs = 20_000): Promise<any> {
  return eventually(
    async () => {
      const res = await c.get(`/api/eligibility/discovery/${id}`);
      if (res.status !== 200) throw new Error(`discovery answered ${res.status}`);
      return res.body.status === 'COMPLETED' ? res.body : undefined;
    },
    { timeoutMs, intervalMs: 25, what: `discovery ${id} completing` },
  );
}
