/**
 * Ranked payer search over a 5,000-payer clearinghouse list (test/helpers/payer-list.ts): what staff type
 * (typos, abbreviations, word order, states, ids) and the payer they mean, which must come in the first
 * three and usually first. Speed is measured in bench/payer-search.ts, not here.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { editDistance } from '../../src/payers/edit-distance.ts';
import { createPayerSearch, type SearchablePayer } from '../../src/payers/search.ts';
import { KNOWN, payerList } from '../helpers/payer-list.ts';

const payers = payerList(5000);
const index = createPayerSearch(payers);

/** [query, the id it means, true when it must come first (else among the first three)]. */
const QUERIES: readonly [string, string, boolean][] = [
  // Blue Cross Blue Shield: abbreviations, state names and codes, word order, typos
  ['bcbs texas', '84980', true],
  ['blue cross tx', '84980', true],
  ['Blue Cross Blue Shield of Texas', '84980', true],
  ['texas blue cross blue shield', '84980', true],
  ['TEXAS BLUE CROSS', '84980', true],
  ['Blue-Cross  Blue-Shield, Texas!!', '84980', true],
  ['blue cros blue sheild texas', '84980', true],
  ['bcbs of tx', '84980', true],
  ['BCBSTX', '84980', true],
  ['84980', '84980', true],
  ['g84980', '84980', true],
  ['bcbs of illinois', '00621', true],
  ['bcbs il', '00621', true],
  ['blue cross illnois', '00621', true],
  ['florida blue', '00590', true],
  ['bcbs florida', '00590', false],
  ['bcbs tennessee', '00390', true],
  ['bluecross blueshield tennessee', '00390', true],
  ['bcbst', '00390', true],
  ['blue cross north carolina', '00950', true],
  ['bcbs nc', '00950', true],
  ['bcbs michigan', '00710', true],
  ['bcbs ma', '00060', true],
  ['anthem blue cross california', '00150', false],
  ['blue shield of california', '00940', true],
  ['empire bcbs', '00803', true],
  ['horizon nj', '22099', true],
  ['independence blue cross', '54704', true],
  ['highmark', '54771', true],
  ['carefirst', '00580', true],
  ['wellmark iowa', '00880', true],
  ['premera', '00932', true],
  ['regence oregon', '00851', true],
  ['blue cross idaho', '00620', true],
  ['hmsa', '00451', true],
  ['bcbs hawaii', '00451', false],
  ['federal employee program', '00550', true],
  ['fep', '00550', true],
  // National carriers and their variants
  ['aetna', '60054', true],
  ['aetan', '60054', true],
  ['AETNA', '60054', true],
  ['60054', '60054', true],
  ['6005', '60054', false],
  ['cigna', '62308', true],
  ['cigan', '62308', true],
  ['uhc', '87726', true],
  ['united healthcare', '87726', true],
  ['unitedhealthcare', '87726', true],
  ['united helthcare', '87726', true],
  ['87726', '87726', true],
  ['uhc texas', '87726CP', true],
  ['united community plan tx', '87726CP', true],
  ['humana', '61101', true],
  ['humana medicare', 'HUMMA', true],
  ['humana gold plus', 'HUMMA', true],
  ['umr', '39026', true],
  ['aarp medicare supplement', '36273', true],
  ['cigna behavioral', '62308BH', true],
  ['evernorth', '62308BH', true],
  ['healthspring', '63092', true],
  ['aetna student', '68862', true],
  ['uhc shared services', '87726SS', true],
  ['uhc student resources', '74227', true],
  // Medicaid and managed Medicaid
  ['texas medicaid', 'SKTX0', true],
  ['medicaid tx', 'SKTX0', true],
  ['tmhp', 'SKTX0', true],
  ['medi-cal', 'SKCA0', true],
  ['Médi-Cal', 'SKCA0', true],
  ['california medicaid', 'SKCA0', true],
  ['ny medicaid', 'SKNY0', true],
  ['emedny', 'SKNY0', true],
  ['ahcccs', 'SKAZ0', true],
  ['arizona medicaid', 'SKAZ0', true],
  ['masshealth', 'SKMA0', true],
  ['massachusetts medicaid', 'SKMA0', true],
  ['tenncare', 'SKTN0', true],
  ['superior healthplan', '68069', true],
  ['superior health plan texas', '68069', true],
  ['sunshine health', '59064', true],
  ['la care', '95378', true],
  ['l.a. care', '95378', true],
  ['fidelis', '11334', true],
  ['healthfirst', '80141', true],
  ['molina texas', 'MOLTX', true],
  ['molina ca', '20554', true],
  ['aetna better health texas', '128TX', true],
  ['amerigroup tx', '26375', true],
  ['wellcare georgia', '14163', true],
  ['caresource ohio', '31114', true],
  ['community health choice', '77003', true],
  // Medicare
  ['medicare part b texas', '04412', true],
  ['novitas tx part b', '04412', true],
  ['medicare b florida', '09102', true],
  ['first coast', '09102', true],
  ['devoted', 'DEVOT', true],
  ['scan health plan', 'SCAN1', true],
  ['clover', 'CLOVR', true],
  // Regional plans, government, TPAs, unions, workers' comp, auto, dental and vision
  ['kaiser norcal', '94135', true],
  ['kaiser northern california', '94135', true],
  ['kaiser socal', '94134', true],
  ['harvard pilgrim', '04271', true],
  ['hphc', '04271', true],
  ['medical mutual ohio', '34196', true],
  ['emblem', '13551', true],
  ['ghi', '13551', true],
  ['oscar', 'OSCAR', true],
  ['tricare west', '99726', true],
  ['tricare east', 'TREST', true],
  ['tricare for life', 'TDDIR', true],
  ['champva', '84146', true],
  ['meritain', '88027', true],
  ['allied benefit', '75068', true],
  ['healthscope', '25133', true],
  ['geha', '37602', true],
  ['government employees health', '37602', true],
  ['teamsters western region', '13407', true],
  ['carpenters california trust', '94320', true],
  ['ibew local 46', 'IBEW46', true],
  ['state compensation insurance fund', 'SCIF1', true],
  ['scif', 'SCIF1', true],
  ['texas mutual workers comp', 'TXMUT', true],
  ['liberty mutual work comp', 'LMWC1', true],
  ['gallagher bassett', 'GALBA', true],
  ['sedgwick', 'SEDGW', true],
  ['geico pip', 'GEICO', true],
  ['delta dental california', 'DDCA1', true],
  ['delta dental ca', 'DDCA1', true],
  ['vsp', 'VSP01', true],
  ['eyemed', 'EYEMD', true],
  ['skca0', 'SKCA0', true],
];

const ids = (query: string, limit = 3) => index.search(query, limit).map((h) => h.payer.id);

test('the generated list: 5,000 payers, unique ids, every named payer in it, the same on every run', () => {
  assert.equal(payers.length, 5000);
  assert.equal(new Set(payers.map((p) => p.id)).size, 5000);
  for (const known of KNOWN)
    assert.ok(
      payers.some((p) => p.id === known.id),
      known.id,
    );
  assert.deepEqual(payerList(5000), payers);
  assert.equal(payerList(10_000).length, 10_000);
});

test(`${QUERIES.length} realistic queries: the payer meant is among the first three, most of them first`, () => {
  const misses: string[] = [];
  let first = 0;
  for (const [query, id, mustBeFirst] of QUERIES) {
    const top = ids(query);
    if (top[0] === id) first++;
    else if (mustBeFirst || !top.includes(id)) misses.push(`${query} → ${top.join(', ')} (wanted ${id})`);
  }
  assert.deepEqual(misses, []);
  assert.ok(QUERIES.length >= 60);
  assert.ok(first >= QUERIES.length * 0.9, `${first} of ${QUERIES.length} first`);
});

test('hits come best first, scores falling; an exact id or alias outranks any name', () => {
  const hits = index.search('blue cross blue shield', 50);
  assert.equal(hits.length, 50);
  for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1]!.score >= hits[i]!.score);
  assert.ok(index.search('BCBSTX', 1)[0]!.score > 10);
  assert.ok(index.search('blue cross blue shield of texas', 1)[0]!.score < 10);
});

test('the state ranks the plan of that state first; other plans of the same family follow', () => {
  const top = index.search('bcbs texas', 10).map((h) => h.payer);
  assert.equal(top[0]!.id, '84980');
  assert.ok(
    top.slice(3).every((p) => /blue/i.test(p.name)),
    'the other Blue plans come next',
  );
  // A national carrier and its state plan: the state in the query picks the plan.
  assert.deepEqual(ids('uhc texas', 2), ['87726CP', '87726']);
});

test('a query with no letter or digit returns every payer in list order, up to the limit', () => {
  for (const query of ['', '   ', '!!!', '&', '- / ,', 'of the']) {
    assert.deepEqual(
      index.search(query, 4).map((h) => [h.payer.id, h.score]),
      payers.slice(0, 4).map((p) => [p.id, 0]),
      JSON.stringify(query),
    );
  }
  assert.equal(index.search('').length, 5000, 'no limit: everything');
});

test('limit: at most that many; 0 gives none; without a limit, every match', () => {
  assert.equal(index.search('health', 7).length, 7);
  assert.deepEqual(index.search('aetna', 0), []);
  assert.deepEqual(index.search('aetna', -1), []);
  const all = index.search('aetna');
  assert.ok(all.length > 7 && all.length < 200, `${all.length} Aetna payers`);
});

test('nothing like the query: no hits (no fuzzy match to unrelated words)', () => {
  assert.deepEqual(index.search('zzqx'), []);
  assert.deepEqual(index.search('nobody'), []);
  assert.deepEqual(index.search('xq7z9'), []);
});

test('a very long query is cut (words after the first 200 characters are ignored), and still answers', () => {
  const long = `bcbs texas ${'x'.repeat(10_000)}`;
  assert.equal(ids(long, 1)[0], '84980');
  const manyWords = Array.from({ length: 500 }, (_, i) => `word${i}`).join(' ');
  assert.deepEqual(index.search(manyWords), []);
});

test('medicaid and medicare are not typos of each other', () => {
  const top = index.search('texas medicaid', 5).map((h) => h.payer.name);
  assert.ok(!/medicare/i.test(top[0]!), top.join(' | '));
  const medicare = index.search('medicare part a texas', 1)[0]!.payer;
  assert.equal(medicare.id, '04411');
});

test('a small list keeps the old substring answers (ids, aliases, names)', () => {
  const small: SearchablePayer[] = [
    { id: 'SANDBOX', name: 'Sandbox Health Plan', aliases: [] },
    { id: 'ACME', name: 'Acme Health Plan', aliases: ['87726', 'ACME-OLD'] },
    { id: 'CIGNA-STEDI', name: 'Cigna (via clearinghouse)', aliases: [] },
    { id: 'LOCKEDOUT', name: 'Locked Out Mutual', aliases: [] },
  ];
  const s = createPayerSearch(small);
  const found = (q: string) => s.search(q).map((h) => h.payer.id);
  assert.deepEqual(found('acme'), ['ACME']);
  assert.deepEqual(found('877'), ['ACME'], 'the beginning of an alias');
  assert.deepEqual(found('acme-old'), ['ACME'], 'an alias, punctuation and all');
  assert.deepEqual(found('CLEARINGHOUSE'), ['CIGNA-STEDI']);
  assert.deepEqual(found('health plan'), ['SANDBOX', 'ACME'], 'ties keep list order');
  assert.deepEqual(found('nobody'), []);
  assert.deepEqual(found('cigna-stedi'), ['CIGNA-STEDI']);
});

test('closest: payers whose id, alias or name is nearest to an id nobody listed', () => {
  const near = (id: string, limit?: number) => index.closest(id, limit).map((h) => h.payer.id);
  assert.equal(near('60045')[0], '60054', 'two digits swapped');
  assert.equal(near('6005')[0], '60054', 'a digit missing');
  assert.equal(near('8498O')[0], '84980', 'the letter O for a zero');
  assert.equal(near('AETAN')[0], '60054', 'a misspelt name');
  assert.equal(near('BCBS-TX')[0], '84980', 'an alias with a dash');
  assert.equal(near('blue cross texas')[0], '84980', 'words: what a search finds');
  assert.ok(near('0062').length <= 3);
  assert.equal(near('0062', 2).length, 2);
  assert.deepEqual(near('ZZZZZZZZ'), []);
  assert.deepEqual(near(''), []);
  assert.deepEqual(near('---'), []);
  const hits = index.closest('60045');
  for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1]!.score >= hits[i]!.score);
});

test('closest on a short list suggests nothing far away', () => {
  const s = createPayerSearch([
    { id: 'SANDBOX', name: 'Sandbox Health Plan', aliases: [] },
    { id: '60054', name: 'Aetna', aliases: [] },
  ]);
  assert.deepEqual(
    s.closest('SANDBOXX').map((h) => h.payer.id),
    ['SANDBOX'],
  );
  assert.deepEqual(s.closest('12345'), []);
  assert.deepEqual(s.closest('UNKNOWN'), []);
});

test('editDistance counts a swap of neighbours as one edit and stops above its bound', () => {
  assert.equal(editDistance('aetna', 'aetna', 2), 0);
  assert.equal(editDistance('aetna', 'aetan', 1), 1);
  assert.equal(editDistance('cigna', 'cigan', 2), 1);
  assert.equal(editDistance('shield', 'sheild', 2), 1);
  assert.equal(editDistance('medicaid', 'medicare', 2), 2);
  assert.equal(editDistance('medicaid', 'medicare', 1), 2, 'above the bound: bound + 1');
  assert.equal(editDistance('texas', 'tx', 1), 2);
  assert.equal(editDistance('abc', 'abcd', 1), 1);
  assert.equal(editDistance('healthcare', 'helthcare', 2), 1);
});
