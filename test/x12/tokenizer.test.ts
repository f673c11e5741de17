/**
 * Tokenizer: delimiters read from the ISA (never from fixed offsets past ISA03), every terminator and
 * separator variety of the corpus, BOM/whitespace/lowercase tolerance, missing terminators, and the typed
 * errors for input that has no readable ISA.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readDelimiters, readSegments } from '../../src/x12/segments.ts';
import { tokenize, type X12Tokens } from '../../src/x12/tokenizer.ts';
import { X12Error } from '../../src/x12/types.ts';

interface Shape {
  el?: string;
  comp?: string;
  rep?: string;
  term?: string;
  /** Text between segments (newline, CRLF, indentation). */
  gap?: string;
}

/** A 106-character ISA built field by field, then a tiny 271 body. */
function interchange({ el = '*', comp = ':', rep = '^', term = '~', gap = '' }: Shape, body: string[] = []) {
  const fields = [
    '00',
    ' '.repeat(10),
    '00',
    ' '.repeat(10),
    'ZZ',
    'SENDER'.padEnd(15),
    'ZZ',
    'RECEIVER'.padEnd(15),
    '260101',
    '1200',
    rep,
    '00501',
    '000000001',
    '0',
    'T',
    comp,
  ];
  const isa = `ISA${el}${fields.join(el)}${term}`;
  assert.equal(isa.length, 106);
  const segments = [
    'GS*HB*S*R*20260101*1200*1*X*005010X279A1',
    'ST*271*0001*005010X279A1',
    ...body,
    `SE*${body.length + 2}*0001`,
    'GE*1*1',
    'IEA*1*000000001',
  ];
  const swap: Record<string, string> = { '*': el, ':': comp, '^': rep };
  const written = segments.map((s) => s.replace(/[*:^]/g, (c) => swap[c]!) + term);
  return isa + gap + written.join(gap);
}

const ids = (t: X12Tokens) => Array.from({ length: t.segmentCount }, (_, i) => t.segmentId(i));
const EB = 'EB*1*IND*30^98^MH*HM*PLAN NAME****VS*3**Y*HC:97110:GP';

describe('delimiters from the ISA', () => {
  const varieties: Shape[] = [
    { el: '*', comp: ':', rep: '^', term: '~' },
    { el: '|', comp: '^', rep: '}', term: '~', gap: '\r\n' },
    { el: '*', comp: '|', rep: '>', term: '\n' },
    { el: '*', comp: ':', rep: '^', term: '\x1d', gap: '\r\n' },
    { el: '|', comp: ':', rep: '~', term: '!' },
    { el: '|', comp: '>', rep: '!', term: '\\' },
    { el: '*', comp: '^', rep: '^', term: '~' },
  ];
  for (const shape of varieties) {
    test(`element ${shape.el} component ${shape.comp} repetition ${shape.rep} terminator ${JSON.stringify(shape.term)}`, () => {
      const t = tokenize(interchange(shape, [EB]));
      assert.deepEqual(t.delimiters, {
        element: shape.el,
        component: shape.comp,
        repetition: shape.rep,
        segment: shape.term,
      });
      assert.deepEqual(ids(t), ['ISA', 'GS', 'ST', 'EB', 'SE', 'GE', 'IEA']);
      // ISA11 equal to ISA16 still splits both ways, and is reported.
      const expected = shape.rep === shape.comp ? ['X12_ISA11_DELIMITER'] : [];
      assert.deepEqual(
        t.issues.map((i) => i.code),
        expected,
      );
      assert.equal(t.element(3, 1), '1');
      assert.equal(t.element(3, 5), 'PLAN NAME');
      assert.deepEqual(t.repetitions(3, 3), ['30', '98', 'MH']);
      assert.deepEqual(t.components(3, 13), ['HC', '97110', 'GP']);
      assert.equal(t.elementCount(3), 13);
      assert.equal(t.element(3, 14), '');
      assert.equal(t.element(0, 16), shape.comp);
      assert.equal(t.element(6, 2), '000000001');
    });
  }

  test('CRLF as the terminator: LF ends segments, CR is trailing whitespace', () => {
    const t = tokenize(interchange({ term: '\n' }).replaceAll('\n', '\r\n'));
    assert.equal(t.delimiters.segment, '\n');
    assert.deepEqual(ids(t), ['ISA', 'GS', 'ST', 'SE', 'GE', 'IEA']);
    assert.equal(t.element(5, 2), '000000001');
  });

  test('4010: ISA11 = U means no repetition separator; EB03 is one value', () => {
    const t = tokenize(interchange({ rep: 'U' }, ['EB*1*IND*30|98']).replace('*00501*', '*00401*'));
    assert.equal(t.delimiters.repetition, null);
    assert.deepEqual(t.repetitions(3, 3), ['30|98']);
    assert.deepEqual(t.issues, []);
  });

  test('an ISA that is not 106 wide is read by counting separators, with a warning', () => {
    const text =
      'ISA*00**00**ZZ*SENDER*ZZ*RECEIVER*260101*1200*^*00501*1*0*T*:~GS*HB*S*R*20260101*1200*1*X*005010X279A1~IEA*1*1~';
    const t = tokenize(text);
    assert.deepEqual(t.delimiters, { element: '*', component: ':', repetition: '^', segment: '~' });
    assert.deepEqual(ids(t), ['ISA', 'GS', 'IEA']);
    assert.deepEqual(
      t.issues.map((i) => [i.code, i.severity, i.position]),
      [['X12_ISA_WIDTH', 'warning', 1]],
    );
  });

  test('an ISA11 that is not a separator character gives an issue and no repetition splitting', () => {
    const t = tokenize(interchange({ rep: 'X' }, ['EB*1*IND*30X98']));
    assert.equal(t.delimiters.repetition, null);
    assert.deepEqual(
      t.issues.map((i) => i.code),
      ['X12_ISA_REPETITION'],
    );
  });
});

describe('layout tolerance', () => {
  test('UTF-8 BOM (decoded or as latin1 bytes), indentation, blank lines and trailing spaces', () => {
    const base = interchange({ gap: '\n    \t' }, ['NM1*IL*1*DOE*JANE   *Q   ']);
    for (const text of [`\ufeff${base}`, `\u00ef\u00bb\u00bf${base}`, `\n\n  ${base}\n\n  \n`]) {
      const t = tokenize(text);
      assert.deepEqual(ids(t), ['ISA', 'GS', 'ST', 'NM1', 'SE', 'GE', 'IEA']);
      assert.equal(t.element(3, 4), 'JANE   ');
      assert.equal(t.element(3, 5), 'Q', 'trailing whitespace before the terminator is dropped');
      assert.equal(t.value(3, 4), 'JANE');
      assert.deepEqual(t.issues, []);
    }
  });

  test('trailing whitespace before a newline terminator (also after ISA16) is not part of the last element', () => {
    const t = tokenize(interchange({ term: '\n' }, ['NM1*IL*1*DOE   ']).replaceAll('\n', '  \n'));
    assert.equal(t.element(3, 3), 'DOE');
  });

  test('lowercase segment ids are upper-cased; values are kept as sent', () => {
    const t = tokenize(interchange({}, ['eb*1*ind*30']).toLowerCase());
    assert.deepEqual(ids(t), ['ISA', 'GS', 'ST', 'EB', 'SE', 'GE', 'IEA']);
    assert.equal(t.element(3, 2), 'ind');
  });

  test('a terminator missing at a line break: the segment is split there and the problem reported', () => {
    const text = interchange({ gap: '\n' }, ['EB*1*IND*30', 'EB*B*IND*98***27*20']).replace(
      'EB*1*IND*30~',
      'EB*1*IND*30',
    );
    const t = tokenize(text);
    assert.deepEqual(ids(t), ['ISA', 'GS', 'ST', 'EB', 'EB', 'SE', 'GE', 'IEA']);
    assert.equal(t.element(3, 3), '30');
    assert.equal(t.element(4, 7), '20');
    assert.deepEqual(
      t.issues.map((i) => [i.code, i.position]),
      [['X12_MISSING_TERMINATOR', 4]],
    );
  });

  test('a later ISA with other delimiters switches them from that segment on', () => {
    const a = interchange({}, ['EB*1*IND*30']);
    const b = interchange({ el: '|', comp: '^', rep: '}', term: '\n' }, ['EB*1*IND*30}MH']);
    const t = tokenize(`${a}\n${b}`);
    assert.equal(t.segmentCount, 14);
    assert.equal(t.segmentId(7), 'ISA');
    assert.deepEqual(t.repetitions(10, 3), ['30', 'MH']);
    assert.equal(t.delimitersAt(10).element, '|');
    assert.equal(t.delimitersAt(3).element, '*');
    assert.deepEqual(
      t.issues.map((i) => [i.code, i.position]),
      [['X12_DELIMITERS_CHANGED', 8]],
    );
  });

  test('characters beyond latin-1 never alias a delimiter (U+012A ends in 0x2A, like *)', () => {
    const t = tokenize(interchange({}, ['NM1*IL*1*D\u012aE*J\u017e\u2713']));
    assert.equal(t.elementCount(3), 4);
    assert.equal(t.element(3, 3), 'D\u012aE');
    assert.equal(t.element(3, 4), 'J\u017e\u2713');
  });

  test('elements past the end, element 0 and empty elements read as strings, never undefined', () => {
    const t = tokenize(interchange({}, ['DTP*291**']));
    assert.equal(t.element(3, 0), 'DTP');
    assert.equal(t.element(3, 2), '');
    assert.equal(t.element(3, 3), '');
    assert.equal(t.element(3, 9), '');
    assert.deepEqual(t.components(3, 9), []);
    assert.deepEqual(t.repetitions(3, 9), []);
    assert.equal(t.elementCount(3), 3);
  });
});

describe('unreadable input is a typed X12Error', () => {
  const cases: [string, string, string][] = [
    ['empty string', '', 'X12_EMPTY'],
    ['only whitespace', ' \r\n\t ', 'X12_EMPTY'],
    ['no ISA', 'GS*HB*S*R~ST*271*1~', 'X12_NO_ISA'],
    ['JSON', '{"data": 1}', 'X12_NO_ISA'],
    ['prose containing the letters', 'Lisa and ISAbel', 'X12_NO_ISA'],
    ['ISA with too few elements', 'ISA*00*00*ZZ*S~GS*HB~', 'X12_BAD_ISA'],
    ['ISA cut before its terminator', interchange({}).slice(0, 105), 'X12_BAD_ISA'],
    ['ISA with an alphanumeric separator', `ISAX${'00X'.repeat(16)}~`, 'X12_BAD_ISA'],
  ];
  for (const [name, text, code] of cases) {
    test(name, () => {
      assert.throws(
        () => tokenize(text),
        (err: unknown) => err instanceof X12Error && err.issues.length > 0 && err.issues[0]!.code === code,
      );
    });
  }
});

describe('readSegments / readDelimiters keep their shape on top of the tokenizer', () => {
  test('segments with 1-based positions and elements[0] = id', () => {
    const { delimiters, segments } = readSegments(
      interchange({ gap: '\r\n' }, ['NM1*IL*1*DOE*JANE****MI*123']),
    );
    assert.equal(delimiters.element, '*');
    assert.deepEqual(segments[3], {
      id: 'NM1',
      elements: ['NM1', 'IL', '1', 'DOE', 'JANE', '', '', '', 'MI', '123'],
      position: 4,
    });
    assert.equal(segments.length, 7);
  });

  test('readDelimiters reads only the ISA and throws X12Error without one', () => {
    assert.deepEqual(readDelimiters(interchange({ el: '|', comp: '^', rep: '}', term: '~' })), {
      element: '|',
      component: '^',
      repetition: '}',
      segment: '~',
    });
    assert.throws(() => readDelimiters('hello'), X12Error);
  });
});
