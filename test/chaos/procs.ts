/**
 * Helpers for the chaos tests: `elig` as real child processes (so `kill -9` is a real kill), PostgreSQL
 * clients for the fresh schema each test file uses. Only for PostgreSQL: the chaos
 * tests are about several processes sharing one database.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { member } from '../helpers/members.ts';

export const PG_URL = process.env.DATABASE_URL;
/** The `skip` option of every chaos test: they need a real PostgreSQL. */
export const NEEDS_PG: string | false = PG_URL
  ? false
  : 'needs DATABASE_URL (run by .ci/run against PostgreSQL)';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export function freshSchema(prefix: string): string {
  return `chaos_${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
}

export async function withPg<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: PG_URL, application_name: 'chaos-test' });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

export async function dropSchema(schema: string): Promise<void> {
  await withPg((c) => c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
}

export interface EligProcess {
  child: ChildProcess;
  pid: number;
  stdout: string;
  stderr: string;
  /** Resolves when the service printed its banner (it is serving / claiming). */
  ready: Promise<void>;
  isReady: boolean;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** JSON log lines the process printed so far. */
  logs(): { msg?: string; [k: string]: unknown }[];
}

/** Starts `node bin/elig.mjs <args>` in the repository with `env` on top of this process's environment. */
export function spawnElig(args: string[], env: Record<string, string>): EligProcess {
  const child = spawn(process.execPath, ['bin/elig.mjs', ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const proc: EligProcess = {
    child,
    pid: child.pid!,
    stdout: '',
    stderr: '',
    ready: Promise.resolve(),
    isReady: false,
    exited: new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal }))),
    logs() {
      return proc.stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l));
    },
  };
  proc.ready = new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      proc.stdout += d.toString('utf8');
      if (!proc.isReady && proc.stdout.includes('Eligibility service ')) {
        proc.isReady = true;
        resolve();
      }
    });
    child.once('exit', (code, signal) => reject(new Error(`elig ${args[0]} exited (${code ?? signal})`)));
  });
  proc.ready.catch(() => {});
  child.stderr!.on('data', (d: Buffer) => {
    proc.stderr += d.toString('utf8');
  });
  return proc;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Sandbox members used by the chaos tests and what each must end as. */
export const MEMBERS = [
  {
    member: member('SBX1000001'),
    outcome: 'COMPLETED',
  },
  {
    member: member('SBX1000002'),
    outcome: 'COMPLETED',
  },
  {
    member: member('SBX1000005'),
    outcome: 'COMPLETED',
  },
  {
    member: member('SBX1000010'),
    outcome: 'COMPLETED',
  },
] as const;
/** Well-formed but unknown to the sandbox: FAILED with AAA 75. */
export const UNKNOWN_MEMBER = {
  member: { memberId: 'SBX1999999', firstName: 'ANY', lastName: 'PERSON', dateOfBirth: '19900101' },
  outcome: 'AAA:75',
} as const;
