// drizzle-kit qualifies references with "public"; our tables live in the schema named by DATABASE_SCHEMA
// (search_path), so generated migrations must not name a schema.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

for (const file of readdirSync('drizzle').filter((f) => f.endsWith('.sql'))) {
  const path = `drizzle/${file}`;
  const text = readFileSync(path, 'utf8');
  const fixed = text.replaceAll('"public".', '');
  if (fixed !== text) writeFileSync(path, fixed);
}
