/** Shared gateway helpers: Retry-After, the X12 test, and the scrubbing of gateway text. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TransientPayerError } from '../../src/payers/connector.ts';
import { MAX_RETRY_AFTER_MS, requireX12, retryAfterMs, scrubGatewayText } from '../../src/payers/http.ts';

describe('retryAfterMs', () => {
  const now = new Date('2026-11-24T10:15:30Z');
  test('delta-seconds and HTTP-dates, capped; unreadable values are ignored', () => {
    assert.equal(retryAfterMs('7', now), 7_000);
    assert.equal(retryAfterMs(' 0 ', now), 0);
    assert.equal(retryAfterMs('Tue, 24 Nov 2026 10:16:00 GMT', now), 30_000);
    assert.equal(retryAfterMs('Tue, 24 Nov 2026 10:00:00 GMT', now), 0);
    assert.equal(retryAfterMs('999999', now), MAX_RETRY_AFTER_MS);
    for (const bad of [undefined, '', '-5', '1.5', 'soon', '2026-11-24'])
      assert.equal(retryAfterMs(bad, now), undefined);
  });
});

describe('requireX12', () => {
  test('an ISA after optional whitespace or a byte-order mark is X12; anything else is transient', () => {
    assert.equal(requireX12('c', '\uFEFF \r\nISA*00'), '\uFEFF \r\nISA*00');
    for (const bad of ['', 'Service unavailable', '<html>', ' GS*HB', 'isa*00']) {
      assert.throws(
        () => requireX12('c', bad),
        (e: Error) => e instanceof TransientPayerError && /not X12/.test(e.message),
      );
    }
  });
});

describe('scrubGatewayText', () => {
  test('drops quoted values, X12, dates, ids, e-mail addresses and our secrets; keeps the sentence', () => {
    const out = scrubGatewayText(
      "Subscriber 'JANE DOE' born 1980-01-15 (19800115) id SBX1000001 mail jane@example.com " +
        'key sk_live_abc not valid; segment NM1*IL*1*DOE*JANE rejected',
      ['sk_live_abc'],
    );
    assert.equal(
      out,
      'Subscriber [value] born [date] ([id]) id [id] mail [email] key [secret] not valid; segment [x12] rejected',
    );
  });

  test('everything from an ISA on is cut; control characters and long text are tamed', () => {
    assert.equal(
      scrubGatewayText('Bad interchange: ISA*00*  *00*  *ZZ*DOE JANE~GS*HS'),
      'Bad interchange: [x12]',
    );
    assert.equal(scrubGatewayText('first\r\n\tsecond\u0000'), 'first second');
    const long = scrubGatewayText('word '.repeat(100));
    assert.equal(long.length, 200);
    assert.ok(long.endsWith('…'), 'marked as cut');
  });
});
