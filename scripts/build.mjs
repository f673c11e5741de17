#!/usr/bin/env node
// `npm run build`: bundles the service (src/cli/main.ts and everything it imports, npm packages left
// external) into dist/elig.mjs, which bin/elig.mjs runs with plain Node when it is newer than every
// source file. Running without tsx saves ~80 MB of memory per process and the CPU of tsx's `keepNames`
// transform. Takes well under a second; `npm start` runs it first. Arguments: the output file (optional),
// `--strict` to exit 1 when bundling fails.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const args = process.argv.slice(2);
const strict = args.includes('--strict'); // fail instead of falling back (tests, benchmarks)
const root = fileURLToPath(new URL('..', import.meta.url));
const outfile = resolve(args.find((a) => !a.startsWith('--')) ?? resolve(root, 'dist/elig.mjs'));
try {
  await build({
    entryPoints: [resolve(root, 'src/cli/main.ts')],
    absWorkingDir: root,
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
  });
} catch (err) {
  // bin/elig.mjs falls back to running the sources through tsx; say so rather than stop `npm start`.
  console.error(`elig build: bundling failed (${err.message}); the sources will run through tsx instead.`);
  process.exitCode = strict ? 1 : 0;
}
