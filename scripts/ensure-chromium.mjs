// Makes sure a Chromium for the browser tests exists at /usr/bin/chromium. When it is missing and we run
// as root, installs the distribution package (apt-get update, then apt-get install -y chromium). When it
// is still missing afterwards, throws: browser tests must fail loudly, never skip.
//
// Usage: `node scripts/ensure-chromium.mjs` or `import { ensureChromium } from './ensure-chromium.mjs'`.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CHROMIUM_PATH = '/usr/bin/chromium';

function run(command, args) {
  const result = spawnSync(command, args, {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (result.error) throw new Error(`${command} could not run: ${result.error.message}`);
  return result.status === 0;
}

/** Returns the path of a usable Chromium, installing it first when possible; throws otherwise. */
export function ensureChromium(path = CHROMIUM_PATH) {
  if (existsSync(path)) return path;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot) {
    console.error(`${path} is missing: installing the chromium package with apt-get`);
    // Two test files may get here at once (and `npm test` installs before it starts them): the lock
    // timeout makes the second apt-get wait for the first instead of failing on dpkg's lock.
    const wait = ['-o', 'DPkg::Lock::Timeout=600'];
    if (!run('apt-get', [...wait, 'update']))
      console.error('apt-get update failed; trying the install anyway');
    run('apt-get', [...wait, 'install', '-y', '--no-install-recommends', 'chromium']);
  }
  if (!existsSync(path)) {
    throw new Error(
      `Chromium is required for the browser tests but ${path} does not exist` +
        (isRoot
          ? ' even after apt-get install chromium.'
          : '; install it (as root: apt-get install -y chromium).'),
    );
  }
  return path;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    console.log(ensureChromium());
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}
