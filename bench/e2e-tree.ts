/**
 * The two trees bench/e2e compares: this one, and a baseline commit checked out in a git worktree under
 * .tmp/bench-trees/<commit hash>/ that is built once and kept (a rerun against the same commit starts at
 * once). Each tree runs its own production bundle (its scripts/build.mjs), so neither pays tsx's transform
 * and the comparison is of the code, not of how it is loaded.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));

export interface BenchTree {
  label: string;
  root: string;
  /** The bundle bin/elig.mjs runs (ELIG_BUNDLE); undefined when the tree cannot bundle (then tsx). */
  bundle: string | undefined;
}

function git(args: string[], cwd = ROOT): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

function say(line: string): void {
  process.stderr.write(`bench/e2e: ${line}\n`);
}

/** Bundles the tree's service into `outfile` with its own build script; undefined when it has none. */
function bundle(root: string, outfile: string): string | undefined {
  if (!existsSync(join(root, 'scripts/build.mjs'))) return undefined;
  execFileSync(process.execPath, ['scripts/build.mjs', '--strict', outfile], { cwd: root, stdio: 'inherit' });
  return outfile;
}

/** This tree as it is on disk (uncommitted changes included), bundled afresh on every run of the bench. */
export function candidateTree(): BenchTree {
  const outfile = join(ROOT, '.tmp/bench-e2e/dist/elig.mjs');
  mkdirSync(join(ROOT, '.tmp/bench-e2e/dist'), { recursive: true });
  return { label: 'this tree', root: ROOT, bundle: bundle(ROOT, outfile) };
}

/**
 * The baseline commit's tree, built on first use: a detached worktree, its npm packages (a symlink to this
 * tree's node_modules when both lockfiles are the same file; otherwise `npm ci`, or `npm install` when an
 * old lockfile is out of step with its package.json, which `npm ci` refuses), and its bundle. A `.ready`
 * marker is written last, so a build that was interrupted is made again rather than reused.
 */
export function baselineTree(commit: string): BenchTree {
  const hash = git(['rev-parse', '--verify', `${commit}^{commit}`]);
  const root = join(ROOT, '.tmp/bench-trees', hash);
  const outfile = join(root, 'dist/elig-bench.mjs');
  const label = `baseline ${hash.slice(0, 7)}`;
  if (existsSync(join(root, '.ready')))
    return { label, root, bundle: existsSync(outfile) ? outfile : undefined };
  say(`building the baseline tree of ${hash.slice(0, 7)} in ${root} (once; reused by later runs)`);
  if (existsSync(root)) {
    git(['worktree', 'remove', '--force', root]);
    rmSync(root, { recursive: true, force: true });
  }
  mkdirSync(join(ROOT, '.tmp/bench-trees'), { recursive: true });
  git(['worktree', 'add', '--detach', root, hash]);
  installPackages(root, hash);
  const built = bundle(root, outfile);
  if (!built) say(`${hash.slice(0, 7)} has no scripts/build.mjs: it runs from its sources through tsx`);
  writeFileSync(join(root, '.ready'), `${new Date().toISOString()}\n`);
  return { label, root, bundle: built };
}

function installPackages(root: string, hash: string): void {
  const ours = readFileSync(join(ROOT, 'package-lock.json'), 'utf8');
  let theirs: string | undefined;
  try {
    theirs = git(['show', `${hash}:package-lock.json`]);
  } catch {
    theirs = undefined;
  }
  if (theirs !== undefined && theirs === ours.trim() && existsSync(join(ROOT, 'node_modules'))) {
    symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(root, 'node_modules'));
    return;
  }
  const npm = (args: string[]) =>
    execFileSync('npm', [...args, '--no-audit', '--no-fund'], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  try {
    say("its lockfile differs from this tree's: npm ci");
    npm(['ci']);
  } catch {
    say('npm ci refused its lockfile (out of step with its package.json): npm install --no-save');
    npm(['install', '--no-save']);
  }
}
