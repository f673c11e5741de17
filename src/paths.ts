/**
 * The project's root directory (where its package.json is), found from this module's location. Files the
 * service reads at run time (migrations, portal assets, package.json) are addressed from it, so the same
 * code works from the sources (`src/...` under tsx) and from the production bundle (`dist/elig.mjs`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'eligibility-service';

function findRoot(from: string): string {
  let dir = dirname(fileURLToPath(from));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === PACKAGE_NAME
    ) {
      return dir;
    }
    const up = dirname(dir);
    if (up === dir) throw new Error(`cannot find the ${PACKAGE_NAME} package root above ${from}`);
    dir = up;
  }
}

const ROOT = findRoot(import.meta.url);

/** An absolute path inside the project, e.g. `projectPath('drizzle')`. */
export function projectPath(...parts: string[]): string {
  return join(ROOT, ...parts);
}
