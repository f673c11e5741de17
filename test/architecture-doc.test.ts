/**
 * docs/architecture.md is the map of src/: every part the import rules know appears in its layout table and
 * nothing else does, and the rules forbid what the map says is forbidden (payers/ → store/ or benefits/,
 * checks/ → batches/ or monitors/), shown by planting each in a scratch tree.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const rulesFile = join(root, '.dependency-cruiser.cjs');
const depcruise = join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

/** The part names of the rules (`layers:<part>` rules), from the config dependency-cruiser itself loads. */
function ruleParts(): string[] {
  const config = createRequire(import.meta.url)(rulesFile) as { forbidden: { name: string }[] };
  return config.forbidden
    .map((r) => /^layers:(.+)$/.exec(r.name)?.[1])
    .filter((p): p is string => p !== undefined && p !== 'unknown');
}

/** The parts the layout table of docs/architecture.md names in its first column (`checks/`, `server.ts`). */
function docParts(): string[] {
  const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
  const table = doc.slice(doc.indexOf('| Part |'), doc.indexOf('\n\n', doc.indexOf('| Part |')));
  return table
    .split('\n')
    .slice(2)
    .flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([a-z0-9-]+)(\/|\.ts)`/g)].map((m) => m[1]!));
}

test('docs/architecture.md names every part of src/ the import rules know, and no other', () => {
  const rules = new Set(ruleParts());
  const doc = new Set(docParts());
  assert.ok(rules.size >= 20, `found ${rules.size} parts in the rules`);
  assert.deepEqual([...rules].filter((p) => !doc.has(p)).sort(), [], 'in the rules, missing from the map');
  assert.deepEqual([...doc].filter((p) => !rules.has(p)).sort(), [], 'on the map, unknown to the rules');
});

test('the rules forbid what the map forbids: payers/ → store/ or benefits/, checks/ → batches/ or monitors/', () => {
  const dir = mkdtempSync(join(tmpdir(), 'elig-map-'));
  const files: Record<string, string> = {
    'tsconfig.json': '{"compilerOptions": {"allowImportingTsExtensions": true, "noEmit": true}}',
    'src/store/checks.ts': 'export const rows = 1;\n',
    'src/benefits/entry.ts': 'export const entry = 1;\n',
    'src/batches/submit.ts': 'export const batch = 1;\n',
    'src/monitors/runs.ts': 'export const run = 1;\n',
    'src/payers/directory.ts':
      "import { rows } from '../store/checks.ts';\nimport { entry } from '../benefits/entry.ts';\nexport const d = rows + entry;\n",
    'src/checks/submit.ts':
      "import { batch } from '../batches/submit.ts';\nimport { run } from '../monitors/runs.ts';\nexport const s = batch + run;\n",
  };
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const run = spawnSync(
      process.execPath,
      [depcruise, '--config', rulesFile, '--output-type', 'json', 'src'],
      {
        cwd: dir,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    const found = (
      JSON.parse(run.stdout).summary.violations as { from: string; to: string; rule: { name: string } }[]
    )
      .map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)
      .sort();
    assert.deepEqual(found, [
      'layers:checks: src/checks/submit.ts → src/batches/submit.ts',
      'layers:checks: src/checks/submit.ts → src/monitors/runs.ts',
      'layers:payers: src/payers/directory.ts → src/benefits/entry.ts',
      'layers:payers: src/payers/directory.ts → src/store/checks.ts',
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
