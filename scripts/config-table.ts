// The configuration table generated from the config schema: printed, or with --write put in place of the
// table in the README's Configuration section (npm run docs:config). test/docs.test.ts holds them equal.
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { CONFIG_VARIABLES } from '../src/config.ts';

export function configTable(): string {
  const rows = CONFIG_VARIABLES.map(
    (v) => `| \`${v.name}\` | ${v.default === undefined ? '—' : `\`${v.default}\``} | ${v.doc} |`,
  );
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const table = configTable();
  if (process.argv.includes('--write')) {
    const readme = readFileSync('README.md', 'utf8');
    const start = readme.indexOf('| Variable | Default | Meaning |');
    let end = start;
    while (end < readme.length && readme.startsWith('|', end)) end = readme.indexOf('\n', end) + 1;
    writeFileSync('README.md', `${readme.slice(0, start)}${table}\n${readme.slice(end)}`);
  } else {
    console.log(table);
  }
}
