// Prints the configuration table generated from the config schema; with --write, replaces the table in
// the README's Configuration section (npm run docs:config).
import { readFileSync, writeFileSync } from 'node:fs';
import { CONFIG_DOCS } from '../src/config.ts';

const rows = CONFIG_DOCS.map((v) => `| \`${v.name}\` | ${v.default === undefined ? '—' : `\`${v.default}\``} | ${v.doc} |`);
const table = ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
if (process.argv.includes('--write')) {
  const readme = readFileSync('README.md', 'utf8');
  const start = readme.indexOf('| Variable | Default | Meaning |');
  let end = start;
  while (end < readme.length && readme.startsWith('|', end)) end = readme.indexOf('\n', end) + 1;
  writeFileSync('README.md', readme.slice(0, start) + table + '\n' + readme.slice(end));
} else {
  console.log(table);
}
