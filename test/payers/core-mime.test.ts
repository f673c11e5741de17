/**
 * caqh-core-mime against the fake CORE MIME gateway: the shared CORE behaviour (core-contract.ts), then
 * what is MIME's own: the parts sent, the payload's bytes, answers that are not multipart/form-data.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { describe, test } from 'node:test';
import { TransientPayerError } from '../../src/payers/connector.ts';
import { readCoreAnswer } from '../../src/payers/core/fields.ts';
import { createCoreMimeConnector } from '../../src/payers/core/index.ts';
import { decodeFormData, encodeFormData } from '../../src/payers/core/multipart.ts';
import { describeCoreConnector } from './core-contract.ts';
import { startCoreMimeFake } from './fakes/core-mime.ts';
import { deps, failsWith, inquiry, PAYER_ID, ref, SECRETS, SENDER_ID } from './gateway-helpers.ts';

const never = () => new AbortController().signal;

describe('caqh-core-mime', () => {
  describeCoreConnector({
    type: 'caqh-core-mime',
    start: startCoreMimeFake,
    create: createCoreMimeConnector,
  });
});

describe('caqh-core-mime wire format', () => {
  test('the parts CORE names, in its order, with UserName and Password from the secret references', async () => {
    const fake = await startCoreMimeFake({
      payerId: PAYER_ID,
      senderId: SENDER_ID,
      receiverId: PAYER_ID,
      username: SECRETS.CORE_USER,
      password: SECRETS.CORE_PASSWORD,
    });
    const c = createCoreMimeConnector(
      { type: 'caqh-core-mime', url: fake.url, username: ref('CORE_USER'), password: ref('CORE_PASSWORD') },
      deps(),
    );
    try {
      await c.send(inquiry(), { signal: never() });
      const seen = fake.requests[0]!;
      assert.deepEqual(seen.problems, []);
      assert.match(String(seen.headers['content-type']), /^multipart\/form-data; boundary=/);
      assert.deepEqual(Object.keys(seen.fields), [
        'ProcessingMode',
        'PayloadType',
        'PayloadID',
        'TimeStamp',
        'UserName',
        'Password',
        'SenderID',
        'ReceiverID',
        'CORERuleVersion',
        'Payload',
      ]);
      assert.equal(seen.fields.UserName, SECRETS.CORE_USER);
    } finally {
      await c.close();
      await fake.close();
    }
  });

  test('line breaks in a payload are kept as sent (no CRLF rewriting), both ways', () => {
    const payload = 'ISA*00~\nGS*HS~\r\nIEA*1*1~\r';
    const form = encodeFormData([
      ['Payload', payload],
      ['ErrorCode', 'Success'],
    ]);
    const fields = decodeFormData(form.body, form.contentType);
    assert.equal(fields.get('Payload'), payload);
    assert.equal(fields.get('ErrorCode'), 'Success');
  });

  test('answers that are not a readable multipart/form-data body are transient failures', async () => {
    const twice = encodeFormData([
      ['ErrorCode', 'Success'],
      ['ErrorCode', 'Success'],
    ]);
    const noCode = encodeFormData([['ErrorMessage', 'x']]);
    const answers: [string, string | Buffer, RegExp][] = [
      ['application/json', '{"x12":"ISA"}', /not multipart\/form-data/],
      ['multipart/form-data', 'no boundary parameter', /malformed multipart/],
      ['multipart/form-data; boundary=abc', '--abc\r\nbroken', /malformed multipart/],
      [twice.contentType, twice.body, /malformed multipart/],
      [noCode.contentType, noCode.body, /lacks ErrorCode/],
    ];
    let next = answers[0]!;
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': next[0] }).end(next[1]);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
    const c = createCoreMimeConnector(
      { type: 'caqh-core-mime', url, username: ref('CORE_USER'), password: ref('CORE_PASSWORD') },
      deps(),
    );
    try {
      for (const answer of answers) {
        next = answer;
        await failsWith(c.send(inquiry(), { signal: never() }), TransientPayerError, answer[2]);
      }
    } finally {
      await c.close();
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('caqh-core-mime answers in other character sets', () => {
  const answer271 = 'ISA*00*          *00*          ~NM1*PR*2*SEÑOR SALUD*****PI*FAKEPAYER~IEA*1*1~';
  const run = async (answerCharset: string) => {
    const fake = await startCoreMimeFake({
      payerId: PAYER_ID,
      senderId: SENDER_ID,
      receiverId: PAYER_ID,
      username: SECRETS.CORE_USER,
      password: SECRETS.CORE_PASSWORD,
      fixedAnswer: answer271,
      answerCharset,
      charsetIn: 'part',
    });
    const c = createCoreMimeConnector(
      { type: 'caqh-core-mime', url: fake.url, username: ref('CORE_USER'), password: ref('CORE_PASSWORD') },
      deps(),
    );
    try {
      return await c.send(inquiry(), { signal: never() });
    } finally {
      await c.close();
      await fake.close();
    }
  };

  test("a part's ISO-8859-1 charset is honoured", async () => {
    assert.equal(await run('ISO-8859-1'), answer271);
  });

  test("a part's UTF-16 charset is honoured", async () => {
    assert.equal(await run('UTF-16'), answer271);
  });

  test('the _charset_ field is the default charset of parts without their own (RFC 7578)', () => {
    const body = Buffer.concat([
      Buffer.from('--b\r\nContent-Disposition: form-data; name="_charset_"\r\n\r\niso-8859-1\r\n', 'latin1'),
      Buffer.from(
        '--b\r\nContent-Disposition: form-data; name="Payload"\r\n\r\nSEÑOR\r\n--b--\r\n',
        'latin1',
      ),
    ]);
    assert.equal(decodeFormData(body, 'multipart/form-data; boundary=b').get('Payload'), 'SEÑOR');
  });

  test('an unknown part charset fails as transient, naming the charset', async () => {
    const err = await failsWith(run('x-klingon'), TransientPayerError, /unknown character set \(x-klingon\)/);
    assert.doesNotMatch(err.message, /SALUD/);
  });

  test('an ErrorCode holding a space is named in the message, not shown as (unreadable)', () => {
    const fields = new Map([
      ['PayloadID', 'id-1'],
      ['ErrorCode', 'Payer Unavailable'],
    ]);
    assert.throws(
      () => readCoreAnswer('caqh-core-mime', fields, 'id-1', []),
      (err: Error) => err instanceof TransientPayerError && /ErrorCode Payer Unavailable\b/.test(err.message),
    );
  });
});
