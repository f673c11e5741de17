/**
 * First start on an empty store: an organization "Demo Clinic", its portal owner with a one-time sign-in
 * link, and a test API key. Printed once by the caller; never stored in plaintext.
 */

import type { Db } from '../store/db.ts';
import { countOrganizations, lockFirstStart } from '../store/organizations.ts';
import { createApiKey, SCOPES } from './api-keys.ts';
import type { ServiceKeys } from './master-secret.ts';
import { createOrganization } from './organizations.ts';
import { createUser, issueLoginToken } from './users.ts';

export interface BootstrapResult {
  organizationId: string;
  apiKey: string;
  ownerEmail: string;
  /** Path of the one-time sign-in link, e.g. `/portal/login/<token>`. */
  loginPath: string;
}

const DEMO_OWNER_EMAIL = 'owner@demo-clinic.example';

export async function bootstrapIfEmpty(db: Db, keys: ServiceKeys): Promise<BootstrapResult | undefined> {
  return db.transaction(async (tx) => {
    // Serialize concurrent first starts on PostgreSQL.
    await lockFirstStart(tx);
    if ((await countOrganizations(tx)) > 0) return undefined;
    const org = await createOrganization(tx, 'Demo Clinic');
    const { key } = await createApiKey(tx, keys.apiKeyPepper, {
      organizationId: org.id,
      name: 'Test key (created at first start)',
      scopes: [...SCOPES],
      mode: 'test',
    });
    const user = await createUser(tx, { organizationId: org.id, email: DEMO_OWNER_EMAIL, role: 'owner' });
    const token = await issueLoginToken(tx, keys.tokenKey, {
      userId: user.id,
      purpose: 'first-login',
      ttlMs: 7 * 24 * 3600_000,
    });
    return {
      organizationId: org.id,
      apiKey: key,
      ownerEmail: user.email,
      loginPath: `/portal/login/${token}`,
    };
  });
}
