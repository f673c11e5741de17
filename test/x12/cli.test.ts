/**
 * `elig x12 parse FILE [--raw]`: the result JSON of a corpus 271 (with the interpreter's benefits and
 * confidence), the loop tree with --raw, a 999 as a rejection, and exit 1 with typed issues on stderr for
 * unreadable or incomplete input.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { eligInProcess } from '../helpers/cli.ts';
import { CORPUS_DIR } from '../helpers/x12-corpus.ts';
import { build271, simple271 } from './build.ts';

const dir = mkdtempSync(join(tmpdir(), 'elig-x12-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const run = (...args: string[]) => eligInProcess('x12', ...args);

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe('elig x12 parse', () => {
  test('a corpus 271 prints the spec’s result fields, benefits and confidence; exit 0', async () => {
    const { code, stdout, stderr } = await run(
      'parse',
      join(CORPUS_DIR, 'tigershark/271_5010_medica_hsd.txt'),
    );
    assert.equal(code, 0);
    const body = JSON.parse(stdout);
    assert.equal(body.payer.payerName, 'MEDICA COM');
    assert.equal(body.subscriber.memberId, '1234567899');
    assert.equal(body.planActive, true);
    assert.equal(body.benefitsInformation.length, 19);
    assert.equal(body.benefits.length, 7);
    assert.equal(typeof body.confidence.score, 'number');
    assert.equal(body.issues, undefined);
    assert.equal(body.rejections, undefined);
    // The wrong SE01 is reported on stderr by code and position only.
    assert.match(stderr, /warning X12_SE01_MISMATCH at segment 75 \(SE\)/);
  });

  test('--raw prints the loop tree with positions', async () => {
    const { code, stdout } = await run(
      'parse',
      join(CORPUS_DIR, 'linuxforhealth-x12/271_5010A1_dependent.271'),
      '--raw',
    );
    assert.equal(code, 0);
    const tree = JSON.parse(stdout);
    assert.equal(tree.delimiters.repetition, '^');
    const [header, source] = tree.transactions[0].loops;
    assert.equal(header.loop, 'HEADER');
    assert.equal(source.loop, '2000A');
    const receiver = source.children.find((l: { loop: string }) => l.loop === '2000B');
    const subscriber = receiver.children.find((l: { loop: string }) => l.loop === '2000C');
    const dependent = subscriber.children.find((l: { loop: string }) => l.loop === '2000D');
    const name = dependent.children.find((l: { loop: string }) => l.loop === '2100D');
    assert.deepEqual(name.segments[0], { position: 16, id: 'NM1', elements: ['03', '1', 'SMITH', 'MARY'] });
    assert.equal(name.children.filter((l: { loop: string }) => l.loop === '2110D').length, 5);
  });

  test('a 999 is printed as a rejection', async () => {
    const { code, stdout } = await run('parse', join(CORPUS_DIR, 'imsweb-x12-parser/999_5010_rejected.txt'));
    assert.equal(code, 0);
    assert.deepEqual(JSON.parse(stdout).rejected.kind, '999');
  });

  test('unreadable input: exit 1, typed issues on stderr, nothing on stdout, no content echoed', async () => {
    const { code, stdout, stderr } = await run('parse', file('garbage.txt', 'SECRET-NAME 19800101 not x12'));
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.match(stderr, /error X12_NO_ISA/);
    assert.ok(!stderr.includes('SECRET'));
  });

  test('a truncated 271: the result is printed, X12_TRUNCATED on stderr, exit 1', async () => {
    const text = build271(simple271());
    const { code, stdout, stderr } = await run('parse', file('cut.x12', text.slice(0, text.indexOf('SE*'))));
    assert.equal(code, 1);
    assert.equal(JSON.parse(stdout).subscriber.memberId, 'M100');
    assert.match(stderr, /error X12_TRUNCATED/);
  });

  test('usage errors exit 2, a missing file 1', async () => {
    assert.equal((await run('parse')).code, 2);
    assert.equal((await run('build', 'x')).code, 2);
    const missing = await run('parse', join(dir, 'nope.x12'));
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /ENOENT/);
  });

  test('through bin/elig.mjs', () => {
    const child = spawnSync(
      process.execPath,
      ['bin/elig.mjs', 'x12', 'parse', join(CORPUS_DIR, 'cosyte-x12/271_5010A1_canonical.edi')],
      {
        encoding: 'utf8',
        env: { ...process.env, ELIG_ENV: 'test' },
      },
    );
    assert.equal(child.status, 0, child.stderr);
    assert.equal(JSON.parse(child.stdout).planInformation.planName, 'GOLD PPO');
  });
});
