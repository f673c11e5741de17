#!/usr/bin/env node
// Entry point of the `elig` CLI. Runs the production bundle (dist/elig.mjs, from `npm run build`) when it
// is newer than every source file; otherwise the TypeScript sources through tsx (development, tests).
// ELIG_RUNTIME=tsx forces the sources; ELIG_BUNDLE=<file> names another bundle (tests, benchmarks).
import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function freshBundle() {
  if (process.env.ELIG_RUNTIME === 'tsx') return undefined;
  try {
    const bundle = process.env.ELIG_BUNDLE || `${root}dist/elig.mjs`;
    return statSync(bundle).mtimeMs >= newestSource(`${root}src`) ? bundle : undefined;
  } catch {
    return undefined;
  }
}

const bundle = freshBundle();
// Shown in the `serve` banner, so operators see whether the process runs the bundle.
process.env.ELIG_RUNNING_FROM = bundle ? 'bundle' : 'sources via tsx';
let main;
if (bundle) {
  ({ main } = await import(bundle));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
