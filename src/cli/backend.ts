/**
 * Where CLI admin operations run: on PostgreSQL, directly; on PGlite, through the running server's local
 * admin endpoint when a server holds the data directory, otherwise directly on the directory.
 */
import type { Config } from '../config.ts';
import { isFeeOp, runFeeOp } from '../fees/admin.ts';
import { readLock } from '../store/datadir-lock.ts';
import { openStore } from '../store/open.ts';
import { runAdminOp } from '../tenancy/admin-ops.ts';
import { deriveServiceKeys, loadOrCreateMasterSecret } from '../tenancy/master-secret.ts';
import { createSecretBox } from '../webhooks/signing-secrets.ts';
import { CliError } from './args.ts';

export async function adminCall(config: Config, op: string, args: Record<string, unknown>): Promise<unknown> {
  const lock = config.databaseUrl ? undefined : readLock(config.dataDir);
  if (lock) {
    if (!lock.adminUrl || !lock.adminToken) {
      throw new CliError(
        `The data directory is held by process ${lock.pid}, which is not serving HTTP; stop it or retry shortly.`,
      );
    }
    const res = await fetch(`${lock.adminUrl}/admin/ops/${encodeURIComponent(op)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${lock.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(args),
    }).catch((err: Error) => {
      throw new CliError(`Could not reach the running server at ${lock.adminUrl}: ${err.message}`);
    });
    const body = (await res.json().catch(() => ({}))) as { result?: unknown; message?: string };
    if (!res.ok) throw new CliError(body.message ?? `server answered ${res.status}`);
    return body.result;
  }
  const store = await openStore(config);
  try {
    const keys = deriveServiceKeys(config.secretKey ?? loadOrCreateMasterSecret(config.dataDir));
    const box = createSecretBox(keys.secretBoxKey);
    if (isFeeOp(op)) return await runFeeOp(store.db, op, args);
    return await runAdminOp(
      { db: store.db, keys, box, allowPrivateWebhooks: config.allowPrivateWebhooks },
      op,
      args,
    );
  } finally {
    await store.close();
  }
}
