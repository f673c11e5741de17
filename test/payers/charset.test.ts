/** How an answer's bytes become text (src/payers/charset.ts), and what a failed decoding leaves behind. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { charsetOf, decodeText, decodeXml, UnknownCharsetError } from '../../src/payers/charset.ts';
import { parse271 } from '../../src/x12/parse271.ts';
import type { Eligibility271 } from '../../src/x12/types.ts';
import { build271, simple271 } from '../x12/build.ts';

const xml = (encoding: string) => `<?xml version='1.0' encoding='${encoding}'?><a>SEÑOR</a>`;

test('charsetOf reads quoted and bare charset parameters', () => {
  assert.equal(charsetOf('application/soap+xml; charset="ISO-8859-1"; action="x"'), 'ISO-8859-1');
  assert.equal(charsetOf('text/xml;charset=utf-16'), 'utf-16');
  assert.equal(charsetOf('application/json'), undefined);
});

test('decodeXml: a byte-order mark, then the transport charset, then the declaration, then UTF-16 sniffing', () => {
  assert.match(decodeXml(Buffer.from(xml('ISO-8859-1'), 'latin1'), undefined), /SEÑOR/);
  assert.match(decodeXml(Buffer.from(xml('ISO-8859-1'), 'latin1'), 'windows-1252'), /SEÑOR/);
  assert.match(decodeXml(Buffer.from(`\ufeff${xml('UTF-16')}`, 'utf16le'), 'ISO-8859-1'), /SEÑOR/);
  const be = Buffer.from(xml('UTF-16'), 'utf16le').swap16();
  assert.match(decodeXml(be, undefined), /SEÑOR/);
  assert.match(decodeXml(Buffer.from(xml('UTF-8'), 'utf8'), undefined), /SEÑOR/);
});

test('an unknown or undecodable charset label throws UnknownCharsetError', () => {
  assert.throws(() => decodeText(Buffer.from('x'), 'x-klingon'), UnknownCharsetError);
  assert.throws(() => decodeText(Buffer.from('x'), 'iso-2022-kr'), UnknownCharsetError);
  assert.throws(() => decodeXml(Buffer.from(xml('x-klingon'), 'latin1'), undefined), UnknownCharsetError);
});

test('ISO-8859-1 bytes read as UTF-8 leave U+FFFD, and the parsed 271 carries X12_REPLACEMENT_CHARACTER', () => {
  const bytes = Buffer.from(build271(simple271()).replace('ACME HEALTH', 'SEÑOR SALUD'), 'latin1');
  const text = decodeText(bytes, 'utf-8');
  assert.ok(text.includes('\uFFFD'));
  const outcome = parse271(text);
  assert.equal(outcome.kind, '271');
  const r = (outcome as { result: Eligibility271 }).result;
  assert.ok(r.warnings.some((w) => w.code === 'X12_REPLACEMENT_CHARACTER'));
});
