/**
 * The payers file shipped as an example and the worked configurations of docs/payers.md are valid
 * against the schema the service enforces, so what operators copy is what the service accepts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { listConfiguredPayers, readPayersFile } from '../../src/payers/directory-file.ts';

const settings = (payersFile: string) => ({ ...loadConfig({ ELIG_ENV: 'test' }), payersFile });

test('examples/payers.example.json is a valid payers file, one connector of each type and auth style', () => {
  const doc = readPayersFile(settings('examples/payers.example.json'));
  const connectors = [
    ...Object.values(doc.connections ?? {}),
    ...doc.payers.flatMap((e) => (e.connector ? [e.connector] : [])),
  ];
  const styles = connectors.map((c) => (c.type === 'x12-json' ? `x12-json/${c.auth.type}` : c.type));
  assert.deepEqual(styles.sort(), [
    'caqh-core-mime',
    'caqh-core-soap',
    'x12-json/api-key',
    'x12-json/oauth2-client-credentials',
  ]);
  const listed = listConfiguredPayers(settings('examples/payers.example.json'));
  assert.equal(listed[0]!.id, 'SANDBOX');
});

test('every worked configuration in docs/payers.md is valid once its placeholders are filled in', () => {
  const doc = readFileSync('docs/payers.md', 'utf8');
  const blocks = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!);
  assert.ok(blocks.length >= 6, `found ${blocks.length} JSON blocks`);
  for (const block of blocks) {
    const filled = block.replace(/<[^>"]*>/g, 'PLACEHOLDER');
    const entries = readPayersFile(settings('docs-block.json'), () => filled).payers;
    assert.ok(entries.length > 0);
  }
});
