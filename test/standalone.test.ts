/**
 * The repository stands alone: a clone is all the tests, benchmarks, scripts and docs need. No file reads
 * or names a path outside the repository (the team's old reference shelf beside it, or any literal path
 * that climbs above the root), every relative link of the Markdown files resolves to a file in the
 * repository, and the vendored X12 corpus carries its licences and attribution.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/[\\/]$/, '');
const DIRS = ['src', 'test', 'bench', 'scripts', 'docs', 'examples', 'packages', 'bin', '.ci'];
const FILES = [
  'README.md',
  'CONTRIBUTING.md',
  'CHANGELOG.md',
  'SECURITY.md',
  'NOTICE',
  'package.json',
  'biome.json',
  'tsconfig.json',
  '.dependency-cruiser.cjs',
];
const SKIP_DIRS = new Set(['node_modules', 'dist', '.git']);
const BINARY = /\.(png|jpe?g|gif|ico|pdf|wasm|woff2?|tgz|gz|zip)$/i;

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.isDirectory()) return SKIP_DIRS.has(e.name) ? [] : walk(join(dir, e.name));
    return e.isFile() && !BINARY.test(e.name) ? [join(dir, e.name)] : [];
  });
}

const files = [
  ...DIRS.filter((d) => existsSync(join(ROOT, d))).flatMap((d) => walk(join(ROOT, d))),
  ...FILES.map((f) => join(ROOT, f)).filter((f) => existsSync(f)),
];
const text = new Map(files.map((f) => [f, readFileSync(f, 'utf8')]));
const rel = (file: string) => relative(ROOT, file).split(sep).join('/');
const inside = (path: string) => path === ROOT || path.startsWith(ROOT + sep);

// The names of the old shelf, assembled so that this file does not match its own patterns.
const SHELF = ['sha', 'red'].join('');
const OUTSIDE_NAMES: [RegExp, string][] = [
  [new RegExp(`\\.\\./${SHELF}\\b`), `../${SHELF}`],
  [new RegExp(`x12-${'samples'}`), `x12-${'samples'}`],
  [new RegExp(`${SHELF}/spec\\b`), `${SHELF}/spec`],
  [new RegExp(`['"]\\.\\.['"]\\s*,\\s*['"]${SHELF}['"]`), `'..', '${SHELF}'`],
  [new RegExp(`code-${'tables'}\\.md`), `code-${'tables'}.md`],
];

/** Literal paths in code that are resolved against the file (`new URL`) or the working directory (the root). */
export function literalPathsOutside(file: string, source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(/new URL\(\s*(['"`])([^'"`$]+)\1\s*,\s*import\.meta\.url\s*\)/g)) {
    const target = fileURLToPath(new URL(m[2]!, pathToFileURL(file)));
    if (!inside(target.replace(/[\\/]$/, ''))) out.push(m[0]);
  }
  for (const m of source.matchAll(/(?:resolve|join)\(\s*process\.cwd\(\)\s*,\s*(['"`])([^'"`$]+)\1/g)) {
    if (!inside(resolve(ROOT, m[2]!))) out.push(m[0]);
  }
  return out;
}

/** Relative Markdown link targets of a file that leave the repository or name no file in it. */
export function brokenLinks(file: string, source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#') || target.startsWith('/')) continue;
    const path = resolve(dirname(file), decodeURIComponent(target.split('#')[0]!));
    if (!inside(path) || !existsSync(path)) out.push(target);
  }
  return out;
}

describe('no file reaches outside the repository', () => {
  test('the walk covers the code, tests, docs and root documents', () => {
    for (const f of [
      'src/server.ts',
      'test/standalone.test.ts',
      'bench/x12.ts',
      'docs/contract.md',
      'README.md',
    ])
      assert.ok(text.has(join(ROOT, f)), f);
    assert.ok(files.length > 300, `${files.length} files`);
  });

  test('no file names the reference shelf beside the repository', () => {
    const found: string[] = [];
    for (const [file, source] of text) {
      source.split('\n').forEach((line, i) => {
        for (const [pattern, name] of OUTSIDE_NAMES)
          if (pattern.test(line)) found.push(`${rel(file)}:${i + 1} names ${name}`);
      });
    }
    assert.deepEqual(found, []);
  });

  test('no literal path in code resolves above the repository root', () => {
    const found: string[] = [];
    for (const [file, source] of text) {
      if (!/\.(ts|mts|mjs|cjs|js)$/.test(file)) continue;
      for (const hit of literalPathsOutside(file, source)) found.push(`${rel(file)}: ${hit}`);
    }
    assert.deepEqual(found, []);
  });

  test('every relative link of the Markdown files names a file in the repository', () => {
    const found: string[] = [];
    for (const [file, source] of text) {
      if (!file.endsWith('.md')) continue;
      for (const target of brokenLinks(file, source)) found.push(`${rel(file)} → ${target}`);
    }
    assert.deepEqual(found, []);
  });

  test('the detectors catch what they are for', () => {
    // Built from parts, so that the walk does not find these examples in this very file.
    const file = join(ROOT, 'test', 'x12', 'example.test.ts');
    const url = (path: string) => `new URL('${path}', import.meta.url)`;
    const cwd = (path: string) => `resolve(process.cwd(), '${path}')`;
    assert.equal(literalPathsOutside(file, url(`${'../'.repeat(3)}elsewhere/a.txt`)).length, 1);
    assert.equal(literalPathsOutside(file, url(`${'../'.repeat(2)}docs/x12-codes.md`)).length, 0);
    assert.equal(literalPathsOutside(file, cwd(`${'../'}elsewhere`)).length, 1);
    assert.equal(literalPathsOutside(file, cwd('test/fixtures')).length, 0);
    const doc = join(ROOT, 'docs', 'example.md');
    assert.deepEqual(brokenLinks(doc, '[a](../../elsewhere.md) [b](contract.md#x) [c](https://x.org/y)'), [
      '../../elsewhere.md',
    ]);
    assert.deepEqual(brokenLinks(doc, '[d](no-such-page.md)'), ['no-such-page.md']);
    assert.ok(OUTSIDE_NAMES.some(([p]) => p.test(`read('../${SHELF}/spec/x.md')`)));
  });
});

const CORPUS_DIR = join(ROOT, 'test', 'fixtures', 'x12-corpus');

interface ProvenanceRow {
  localPath: string;
  repo: string;
  commit: string;
  licence: string;
}
const provenance: ProvenanceRow[] = readFileSync(join(CORPUS_DIR, 'PROVENANCE.tsv'), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => {
    const [localPath, repo, , commit, licence] = line.split('\t');
    return { localPath: localPath!, repo: repo!, commit: commit!, licence: licence! };
  });

/** Phrases every full text of the licence contains (the MIT grant, the BSD conditions, the titles). */
const phrase = (...parts: string[]) =>
  new RegExp(parts.map((p) => p.split(' ').join('\\s+')).join('[\\s\\S]*'), 'i');
const LICENCE_TEXT: Record<string, RegExp> = {
  MIT: phrase('Permission is hereby granted, free of charge'),
  'BSD-3-Clause': phrase('Redistribution and use in source and binary forms', 'used to endorse or promote'),
  'Apache-2.0': phrase('Apache License Version 2.0, January 2004', 'END OF TERMS AND CONDITIONS'),
  'CDDL-1.0': phrase('Common Development and Distribution License', 'Sun Microsystems'),
};

/** The licence file of a row's folder: `LICENSE`, or `LICENSE-<owner>` when forks share a folder. */
function licenceFile(row: ProvenanceRow): string | undefined {
  const folder = join(CORPUS_DIR, dirname(row.localPath));
  const owner = row.repo.split('/')[0]!.toLowerCase();
  return [join(folder, `LICENSE-${owner}`), join(folder, 'LICENSE')].find((f) => existsSync(f));
}

describe('the vendored X12 corpus carries its provenance and licences', () => {
  const notice = readFileSync(join(ROOT, 'NOTICE'), 'utf8');

  test('44 files, every one listed in PROVENANCE.tsv and every listed one present', () => {
    assert.equal(provenance.length, 44);
    const listed = new Set(provenance.map((r) => r.localPath));
    const present = walk(CORPUS_DIR)
      .map((f) => relative(CORPUS_DIR, f).split(sep).join('/'))
      .filter((f) => f.includes('/') && !/\/LICENSE(-[\w-]+)?$/.test(f));
    assert.deepEqual(present.sort(), [...listed].sort());
    for (const row of provenance)
      assert.ok(statSync(join(CORPUS_DIR, row.localPath)).size > 0, row.localPath);
  });

  test('each row names a repository, a full commit and one of the four licences', () => {
    for (const row of provenance) {
      assert.match(row.repo, /^[\w.-]+\/[\w.-]+$/, row.localPath);
      assert.match(row.commit, /^[0-9a-f]{40}$/, row.localPath);
      assert.ok(Object.hasOwn(LICENCE_TEXT, row.licence), `${row.localPath}: ${row.licence}`);
    }
    const perLicence: Record<string, number> = {};
    for (const row of provenance) perLicence[row.licence] = (perLicence[row.licence] ?? 0) + 1;
    assert.deepEqual(perLicence, { 'BSD-3-Clause': 14, 'CDDL-1.0': 18, 'Apache-2.0': 3, MIT: 9 });
  });

  test('every file has the full text of its licence in its folder', () => {
    for (const row of provenance) {
      const file = licenceFile(row);
      assert.ok(file, `${row.localPath}: no LICENSE in its folder`);
      assert.match(readFileSync(file, 'utf8'), LICENCE_TEXT[row.licence]!, `${row.localPath}: ${rel(file)}`);
    }
  });

  test('NOTICE names every repository with its commit and licence, and every file', () => {
    for (const row of provenance) {
      assert.ok(notice.includes(`https://github.com/${row.repo} at commit ${row.commit}`), row.repo);
      assert.ok(notice.includes(row.licence), row.licence);
      assert.ok(notice.includes(row.localPath.split('/').pop()!), row.localPath);
    }
    assert.match(notice, /CDDL-1\.0/);
  });

  test('the project itself is Apache-2.0, at the root and in the client package', () => {
    for (const dir of [ROOT, join(ROOT, 'packages', 'client')]) {
      assert.match(readFileSync(join(dir, 'LICENSE'), 'utf8'), LICENCE_TEXT['Apache-2.0']!, dir);
      assert.equal(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).license, 'Apache-2.0', dir);
    }
  });
});
