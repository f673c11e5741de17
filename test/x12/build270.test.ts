import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { X12Parser } from 'node-x12';
import { build270, type Envelope270, type Inquiry270, X12BuildError } from '../../src/x12/build270.ts';
import { readSegments, type Segment } from '../../src/x12/segments.ts';
import { member } from '../helpers/members.ts';
import { CORPUS_DIR } from '../helpers/x12-corpus.ts';

const inquiry = (over: Partial<Inquiry270> = {}): Inquiry270 => ({
  payer: { name: 'Sandbox Health Plan', id: 'SANDBOX' },
  provider: { npi: '1234567893', organizationName: 'Test Clinic' },
  subscriber: member('SBX1000001'),
  traceNumber: '0191d2c3a4b57c6d8e9f0a1b2c3d4e5f',
  ...over,
});
const envelope = (over: Partial<Envelope270> = {}): Envelope270 => ({
  senderId: 'ELIGSVC',
  receiverId: 'SANDBOX',
  interchangeControlNumber: 123_456_789,
  now: new Date('2026-03-04T09:07:00Z'),
  usageIndicator: 'T',
  ...over,
});

const one = (segments: Segment[], id: string, n = 0) => segments.filter((s) => s.id === id)[n]!;

describe('build270', () => {
  test('round trip through readSegments: loops, names, ids, dates', () => {
    const text = build270(
      inquiry({ encounter: { serviceTypeCodes: ['98', 'PT'], dateOfService: '20260301' } }),
      envelope(),
    );
    const { delimiters, segments } = readSegments(text);
    assert.deepEqual(delimiters, { element: '*', component: ':', repetition: '^', segment: '~' });
    assert.deepEqual(
      segments.map((s) => s.id),
      [
        'ISA',
        'GS',
        'ST',
        'BHT',
        'HL',
        'NM1',
        'HL',
        'NM1',
        'HL',
        'TRN',
        'NM1',
        'DMG',
        'DTP',
        'EQ',
        'SE',
        'GE',
        'IEA',
      ],
    );
    assert.deepEqual(one(segments, 'GS').elements.slice(1), [
      'HS',
      'ELIGSVC',
      'SANDBOX',
      '20260304',
      '0907',
      '123456789',
      'X',
      '005010X279A1',
    ]);
    assert.deepEqual(one(segments, 'ST').elements.slice(1), ['270', '0001', '005010X279A1']);
    assert.deepEqual(one(segments, 'BHT').elements.slice(1), [
      '0022',
      '13',
      '0191d2c3a4b57c6d8e9f0a1b2c3d4e5f',
      '20260304',
      '0907',
    ]);
    const hls = segments.filter((s) => s.id === 'HL').map((s) => s.elements.slice(1));
    assert.deepEqual(hls, [
      ['1', '', '20', '1'],
      ['2', '1', '21', '1'],
      ['3', '2', '22', '0'],
    ]);
    assert.equal(one(segments, 'NM1', 0).elements.join('*'), 'NM1*PR*2*Sandbox Health Plan*****PI*SANDBOX');
    assert.equal(one(segments, 'NM1', 1).elements.join('*'), 'NM1*1P*2*Test Clinic*****XX*1234567893');
    assert.equal(
      one(segments, 'TRN').elements.join('*'),
      'TRN*1*0191d2c3a4b57c6d8e9f0a1b2c3d4e5f*9ELIGSVC00',
    );
    assert.equal(one(segments, 'NM1', 2).elements.join('*'), 'NM1*IL*1*DOE*JANE****MI*SBX1000001');
    assert.equal(one(segments, 'DMG').elements.join('*'), 'DMG*D8*19800115');
    assert.equal(one(segments, 'DTP').elements.join('*'), 'DTP*291*D8*20260301');
    assert.deepEqual(one(segments, 'EQ').elements[1]!.split(delimiters.repetition!), ['98', 'PT']);
  });

  test('has the same segment layout as a real 5010 subscriber 270', () => {
    const real = readSegments(
      readFileSync(`${CORPUS_DIR}/linuxforhealth-x12/270_5010A1_subscriber.270`, 'utf8'),
    );
    const ours = readSegments(build270(inquiry({ encounter: { dateOfService: '20260301' } }), envelope()));
    const layout = (s: Segment[]) => s.map((x) => (x.id === 'HL' ? `HL/${x.elements[3]}` : x.id));
    assert.deepEqual(layout(ours.segments), layout(real.segments));
  });

  test('ISA is exactly 106 characters with fixed widths, ISA11 ^ and ISA16 :', () => {
    const text = build270(inquiry(), envelope({ interchangeControlNumber: 7, usageIndicator: 'P' }));
    const isa = text.slice(0, 106);
    assert.equal(isa.at(-1), '~');
    assert.equal(text.indexOf('~'), 105);
    const e = isa.slice(0, -1).split('*');
    assert.equal(e.length, 17);
    const widths = e.slice(1).map((v) => v.length);
    assert.deepEqual(widths, [2, 10, 2, 10, 2, 15, 2, 15, 6, 4, 1, 5, 9, 1, 1, 1]);
    assert.equal(e[6], 'ELIGSVC        ');
    assert.equal(e[8], 'SANDBOX        ');
    assert.equal(e[9], '260304');
    assert.equal(e[10], '0907');
    assert.equal(e[11], '^');
    assert.equal(e[12], '00501');
    assert.equal(e[13], '000000007');
    assert.equal(e[15], 'P');
    assert.equal(e[16], ':');
  });

  test('SE counts ST through SE; control numbers match; an independent strict parser accepts it', () => {
    for (const encounter of [undefined, { dateOfService: '20260301', serviceTypeCodes: ['MH'] }]) {
      const text = build270(inquiry({ encounter }), envelope({ interchangeControlNumber: 999_999_999 }));
      const { segments } = readSegments(text);
      const st = segments.findIndex((s) => s.id === 'ST');
      const se = segments.findIndex((s) => s.id === 'SE');
      assert.equal(Number(segments[se]!.elements[1]), se - st + 1);
      assert.equal(segments[se]!.elements[2], segments[st]!.elements[2]);
      assert.equal(one(segments, 'GE').elements[1], '1');
      assert.equal(one(segments, 'GE').elements[2], one(segments, 'GS').elements[6]);
      assert.equal(one(segments, 'IEA').elements[1], '1');
      assert.equal(one(segments, 'IEA').elements[2], one(segments, 'ISA').elements[13]);
      assert.equal(one(segments, 'ISA').elements[13], '999999999');
      // node-x12 in strict mode checks SE01 and the envelope control numbers.
      assert.doesNotThrow(() => new X12Parser(true).parse(text));
    }
  });

  test('EQ defaults to 30; DTP only with a date of service; DMG carries gender when given', () => {
    const { segments } = readSegments(build270(inquiry({ encounter: {} }), envelope()));
    assert.equal(one(segments, 'EQ').elements.join('*'), 'EQ*30');
    assert.equal(
      segments.find((s) => s.id === 'DTP'),
      undefined,
    );
    const withGender = readSegments(
      build270(
        inquiry({ subscriber: { ...inquiry().subscriber, gender: 'F', middleName: 'Q' } }),
        envelope(),
      ),
    );
    assert.equal(one(withGender.segments, 'DMG').elements.join('*'), 'DMG*D8*19800115*F');
    assert.equal(
      one(withGender.segments, 'NM1', 2).elements.join('*'),
      'NM1*IL*1*DOE*JANE*Q***MI*SBX1000001',
    );
  });

  test('a person provider is NM1*1P*1 with last and first name; a facility is FA', () => {
    const person = readSegments(
      build270(inquiry({ provider: { npi: '1234567893', firstName: 'ANN', lastName: 'LEE' } }), envelope()),
    );
    assert.equal(one(person.segments, 'NM1', 1).elements.join('*'), 'NM1*1P*1*LEE*ANN****XX*1234567893');
    const facility = readSegments(
      build270(
        inquiry({ provider: { npi: '1234567893', organizationName: 'General', providerType: 'facility' } }),
        envelope(),
      ),
    );
    assert.equal(one(facility.segments, 'NM1', 1).elements.join('*'), 'NM1*FA*2*General*****XX*1234567893');
    assert.throws(
      () => build270(inquiry({ provider: { npi: '1234567893', firstName: 'ANN' } }), envelope()),
      {
        name: 'X12BuildError',
        message: /provider/,
      },
    );
  });

  test('delimiters inside values are rejected, naming the field and never the value', () => {
    for (const bad of ['DOE*X', 'DOE~ISA*00', 'DOE^X', 'DOE:X', 'DOE\nX', 'DOE\u001dX']) {
      assert.throws(
        () => build270(inquiry({ subscriber: { ...inquiry().subscriber, lastName: bad } }), envelope()),
        (err: unknown) => {
          assert.ok(err instanceof X12BuildError);
          assert.equal(err.field, 'subscriber.lastName');
          assert.ok(!err.message.includes(bad), 'message echoes the value');
          assert.ok(!err.message.includes('DOE'));
          return true;
        },
      );
    }
    const fields: [string, Partial<Inquiry270>][] = [
      ['provider.organizationName', { provider: { npi: '1234567893', organizationName: 'A~B' } }],
      ['subscriber.memberId', { subscriber: { ...inquiry().subscriber, memberId: 'SBX*1' } }],
      ['subscriber.firstName', { subscriber: { ...inquiry().subscriber, firstName: 'J:ANE' } }],
      ['traceNumber', { traceNumber: 'T~1' }],
      ['payer.name', { payer: { name: 'P*', id: 'SANDBOX' } }],
      ['encounter.serviceTypeCodes[1]', { encounter: { serviceTypeCodes: ['30', '9^8'] } }],
    ];
    for (const [field, over] of fields) {
      assert.throws(
        () => build270(inquiry(over), envelope()),
        (err: unknown) => {
          assert.ok(err instanceof X12BuildError, field);
          assert.equal(err.field, field);
          return true;
        },
      );
    }
    assert.throws(() => build270(inquiry(), envelope({ senderId: 'A*B' })), { name: 'X12BuildError' });
  });

  test('rejects malformed values: NPI, dates, service type codes, control numbers, ids', () => {
    const cases: [Partial<Inquiry270>, Partial<Envelope270>][] = [
      [{ provider: { npi: '12345', organizationName: 'X' } }, {}],
      [{ subscriber: { ...inquiry().subscriber, dateOfBirth: '1980-01-15' } }, {}],
      [{ encounter: { dateOfService: '20261301' } }, {}],
      [{ encounter: { serviceTypeCodes: ['pt'] } }, {}],
      [{ subscriber: { ...inquiry().subscriber, memberId: ' ' } }, {}],
      [{}, { interchangeControlNumber: 0 }],
      [{}, { interchangeControlNumber: 1_000_000_000 }],
      [{}, { interchangeControlNumber: 1.5 }],
      [{}, { senderId: 'SIXTEEN-CHARS-ID' }],
      [{}, { now: new Date('nope') }],
    ];
    for (const [inq, env] of cases) {
      assert.throws(
        () => build270(inquiry(inq), envelope(env)),
        { name: 'X12BuildError' },
        JSON.stringify([inq, env]),
      );
    }
  });

  test('ISA05/ISA07 qualifiers are configurable; the defaults (ZZ) keep the 270 byte for byte', () => {
    const full = inquiry({ encounter: { serviceTypeCodes: ['98', 'PT'], dateOfService: '20260301' } });
    const plain = build270(full, envelope());
    // The SHA-256 of this exact inquiry as built before qualifiers were configurable.
    assert.equal(
      createHash('sha256').update(plain).digest('hex'),
      'def047256a9440ae66d4fd7172528e518cc9f6a6ae758be966b27145fdabc042',
    );
    assert.equal(build270(full, envelope({ senderQualifier: 'ZZ', receiverQualifier: 'ZZ' })), plain);
    const isa = one(
      readSegments(build270(full, envelope({ senderQualifier: '30', receiverQualifier: 'PI' }))).segments,
      'ISA',
    );
    assert.equal(isa.elements[5], '30');
    assert.equal(isa.elements[7], 'PI');
    for (const bad of ['Z', 'ZZZ', 'zz', 'Z*']) {
      assert.throws(() => build270(full, envelope({ senderQualifier: bad })), {
        name: 'X12BuildError',
        message: /senderQualifier/,
      });
      assert.throws(() => build270(full, envelope({ receiverQualifier: bad })), {
        name: 'X12BuildError',
        message: /receiverQualifier/,
      });
    }
  });

  test('eqForm loops writes one EQ loop per code; repeat (the default) keeps the 270 byte for byte', () => {
    const full = inquiry({ encounter: { serviceTypeCodes: ['98', 'PT', 'MH'], dateOfService: '20260301' } });
    const plain = build270(full, envelope());
    assert.equal(build270({ ...full, eqForm: 'repeat' }, envelope()), plain);
    assert.match(plain, /\nEQ\*98\^PT\^MH~\nSE\*13\*0001~/);

    const loops = build270({ ...full, eqForm: 'loops' }, envelope());
    const { segments } = readSegments(loops);
    assert.deepEqual(
      segments.filter((s) => s.id === 'EQ').map((s) => s.elements.slice(1)),
      [['98'], ['PT'], ['MH']],
    );
    // SE01 counts the two extra EQ segments; a strict parser still accepts the interchange.
    assert.equal(one(segments, 'SE').elements[1], '15');
    assert.equal(loops.replace(/EQ\*98~\nEQ\*PT~\nEQ\*MH~\nSE\*15/, 'EQ*98^PT^MH~\nSE*13'), plain);
    new X12Parser(true).parse(loops);
    // Codes are checked in either form.
    assert.throws(
      () => build270(inquiry({ eqForm: 'loops', encounter: { serviceTypeCodes: ['P*'] } }), envelope()),
      { name: 'X12BuildError', message: /serviceTypeCodes\[0\]/ },
    );
  });
});
