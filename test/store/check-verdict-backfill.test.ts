/**
 * Migration 0005 (the `verdict` column): checks finished before it get the verdict their stored result
 * implies, by the same rule as src/checks/verdict.ts; a purged COMPLETED result no longer says, so it stays
 * unknown (NULL). The migration's UPDATE is run again here on rows written without a verdict.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { test } from 'node:test';
import { verdictOf } from '../../src/checks/verdict.ts';
import type { EligibilityCheckResponse } from '../../src/contract/check-response.ts';
import { uuidv7 } from '../../src/ids.ts';
import { projectPath } from '../../src/paths.ts';
import { openStore } from '../../src/store/open.ts';
import { createOrganization } from '../../src/tenancy/organizations.ts';
import { dropTestSchema, testConfig } from '../helpers/service.ts';

const backfill = readFileSync(projectPath('drizzle', '0006_check_verdict.sql'), 'utf8')
  .split('--> statement-breakpoint')
  .map((s) => s.trim())
  .find((s) => s.includes('UPDATE'));

test('the backfill gives old finished checks the verdict their result implies', async () => {
  assert.ok(backfill, 'the migration has an UPDATE');
  const config = testConfig();
  const store = await openStore(config);
  try {
    const db = store.db;
    const org = await createOrganization(db, 'Old Clinic');
    const bodies: [string, Partial<EligibilityCheckResponse> & { status: string }, string | null][] = [
      ['active', { status: 'COMPLETED', planActive: true }, 'ACTIVE'],
      ['inactive', { status: 'COMPLETED', planActive: false }, 'INACTIVE'],
      ['undetermined', { status: 'COMPLETED' }, 'UNDETERMINED'],
      ['failed', { status: 'FAILED', errors: [] }, 'FAILED'],
      ['purged', { status: 'COMPLETED' }, null],
      ['purged-failed', { status: 'FAILED' }, 'FAILED'],
      ['running', { status: 'IN_PROGRESS' }, null],
    ];
    const ids: Record<string, string> = {};
    for (const [name, body] of bodies) {
      ids[name] = uuidv7();
      await db.query(
        `INSERT INTO checks (id, organization_id, status, trading_partner_service_id, request, result, purged_at)
         VALUES ($1, $2, $3, 'SANDBOX', '{}', $4, $5)`,
        [
          ids[name],
          org.id,
          body.status,
          body.status === 'IN_PROGRESS' ? null : JSON.stringify({ id: ids[name], ...body }),
          name.startsWith('purged') ? new Date() : null,
        ],
      );
    }
    await db.query(backfill!);
    for (const [name, body, expected] of bodies) {
      const { rows } = await db.query<{ verdict: string | null }>(
        'SELECT verdict FROM checks WHERE id = $1',
        [ids[name]],
      );
      assert.equal(rows[0]!.verdict, expected, name);
      if (expected && !name.startsWith('purged')) {
        const rule = verdictOf({ id: ids[name]!, ...body } as EligibilityCheckResponse);
        assert.equal(rule?.status, expected, `${name}: the same as verdictOf`);
      }
    }
  } finally {
    await store.close();
    await dropTestSchema(config);
    rmSync(config.dataDir, { recursive: true, force: true });
  }
});
