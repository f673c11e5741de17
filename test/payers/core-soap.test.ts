/**
 * caqh-core-soap against the fake CORE SOAP gateway: the shared CORE behaviour (core-contract.ts), then
 * what is SOAP's own: the content type and action, WS-Security, CDATA, faults, SOAP 1.1 answers.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { describe, test } from 'node:test';
import {
  PayerAuthenticationError,
  PermanentPayerError,
  TransientPayerError,
} from '../../src/payers/connector.ts';
import { createCoreSoapConnector } from '../../src/payers/core/index.ts';
import { SOAP_CONTENT_TYPE, SOAP12_NS, soapEnvelope } from '../../src/payers/core/soap.ts';
import { childrenNamed, parseXml } from '../../src/payers/core/xml.ts';
import { describeCoreConnector } from './core-contract.ts';
import { startCoreSoapFake } from './fakes/core-soap.ts';
import { deps, failsWith, inquiry, PAYER_ID, ref, SECRETS, SENDER_ID } from './gateway-helpers.ts';

const never = () => new AbortController().signal;

describe('caqh-core-soap', () => {
  describeCoreConnector({
    type: 'caqh-core-soap',
    start: startCoreSoapFake,
    create: createCoreSoapConnector,
  });
});

describe('caqh-core-soap wire format', () => {
  const fakeOptions = {
    payerId: PAYER_ID,
    senderId: SENDER_ID,
    receiverId: PAYER_ID,
    username: SECRETS.CORE_USER,
    password: SECRETS.CORE_PASSWORD,
  };
  const config = (url: string) =>
    ({ type: 'caqh-core-soap', url, username: ref('CORE_USER'), password: ref('CORE_PASSWORD') }) as const;

  test('SOAP 1.2 content type with the RealTimeTransaction action', async () => {
    const fake = await startCoreSoapFake(fakeOptions);
    const c = createCoreSoapConnector(config(fake.url), deps());
    try {
      await c.send(inquiry(), { signal: never() });
      assert.equal(fake.requests[0]!.headers['content-type'], SOAP_CONTENT_TYPE);
      assert.deepEqual(fake.requests[0]!.problems, []);
    } finally {
      await c.close();
      await fake.close();
    }
  });

  test('a payload holding "]]>" and credentials holding markup survive the envelope intact', () => {
    const payload = 'ISA*00*]]>*x]]]]>y~\nIEA*1*1~';
    const credentials = { username: 'a<b&c', password: 'p"]]>&amp;<' };
    const xml = soapEnvelope(
      {
        PayloadType: 'X12_270_Request_005010X279A1',
        ProcessingMode: 'RealTime',
        PayloadID: 'f47ac10b-58cc-4372-a567-0e02b2c3d479',
        TimeStamp: '2026-11-24T10:15:30Z',
        SenderID: 'S&P',
        ReceiverID: 'R',
        CORERuleVersion: '2.2.0',
        Payload: payload,
      },
      credentials,
    );
    const doc = parseXml(xml);
    const body = childrenNamed(doc, SOAP12_NS, 'Body')[0]!;
    const request = body.children[0]!;
    const field = (name: string) => request.children.find((c) => c.name === name)?.text;
    assert.equal(field('Payload'), payload);
    assert.equal(field('SenderID'), 'S&P');
    const header = childrenNamed(doc, SOAP12_NS, 'Header')[0]!;
    const token = header.children[0]!.children[0]!;
    assert.deepEqual(
      token.children.map((c) => c.text),
      [credentials.username, credentials.password],
    );
  });

  test('a 270 holding a character XML cannot carry is refused before any traffic', async () => {
    const fake = await startCoreSoapFake(fakeOptions);
    const c = createCoreSoapConnector(config(fake.url), deps());
    try {
      await failsWith(
        c.send(`${inquiry()}\u0001`, { signal: never() }),
        PermanentPayerError,
        /control character/,
      );
      assert.equal(fake.requests.length, 0);
    } finally {
      await c.close();
      await fake.close();
    }
  });

  test('a WS-Security fault (no UsernameToken sent) is an authentication failure', async () => {
    const fake = await startCoreSoapFake(fakeOptions);
    // Certificate-only config against a password gateway over plain HTTP: no Security header is sent.
    const c = createCoreSoapConnector(
      { type: 'caqh-core-soap', url: fake.url, clientCert: ref('CORE_USER'), clientKey: ref('CORE_USER') },
      deps(),
    );
    try {
      await failsWith(
        c.send(inquiry(), { signal: never() }),
        PayerAuthenticationError,
        /SOAP Fault Sender\/InvalidSecurityToken/,
      );
      assert.match(fake.requests[0]!.problems.join(), /no WS-Security UsernameToken/);
    } finally {
      await c.close();
      await fake.close();
    }
  });

  test('answers that are not SOAP 1.2 are transient failures that say why', async () => {
    const answers: [string, string, RegExp][] = [
      [
        'text/xml',
        '<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/"><e:Body/></e:Envelope>',
        /SOAP 1\.1/,
      ],
      ['application/soap+xml', '<!DOCTYPE x [<!ENTITY a "b">]><x/>', /malformed XML/],
      ['application/json', '{"x12":"ISA"}', /not SOAP/],
      [
        'application/soap+xml',
        `<s:Envelope xmlns:s="${SOAP12_NS}"><s:Body><x/></s:Body></s:Envelope>`,
        /no single COREEnvelopeRealTimeResponse/,
      ],
    ];
    let next = answers[0]!;
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': next[0] }).end(next[1]);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const c = createCoreSoapConnector(
      config(`http://127.0.0.1:${(server.address() as { port: number }).port}/`),
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

describe('caqh-core-soap answers in other character sets', () => {
  const answer271 = 'ISA*00*          *00*          ~NM1*PR*2*SEÑOR SALUD*****PI*FAKEPAYER~IEA*1*1~';
  const config = (url: string) =>
    ({ type: 'caqh-core-soap', url, username: ref('CORE_USER'), password: ref('CORE_PASSWORD') }) as const;
  const run = async (answerCharset: string, charsetIn: 'http' | 'xml') => {
    const fake = await startCoreSoapFake({
      payerId: PAYER_ID,
      senderId: SENDER_ID,
      receiverId: PAYER_ID,
      username: SECRETS.CORE_USER,
      password: SECRETS.CORE_PASSWORD,
      fixedAnswer: answer271,
      answerCharset,
      charsetIn,
    });
    const c = createCoreSoapConnector(config(fake.url), deps());
    try {
      return await c.send(inquiry(), { signal: never() });
    } finally {
      await c.close();
      await fake.close();
    }
  };

  test('ISO-8859-1 named by the HTTP charset is read as ISO-8859-1', async () => {
    assert.equal(await run('ISO-8859-1', 'http'), answer271);
  });

  test('ISO-8859-1 named only by the XML declaration is read as ISO-8859-1', async () => {
    assert.equal(await run('ISO-8859-1', 'xml'), answer271);
  });

  test('UTF-16 with a byte-order mark is accepted, as XML 1.0 requires', async () => {
    assert.equal(await run('UTF-16', 'xml'), answer271);
    assert.equal(await run('UTF-16', 'http'), answer271);
  });

  test('an unknown charset fails as transient, naming the charset and nothing of the answer', async () => {
    const err = await failsWith(
      run('x-klingon', 'http'),
      TransientPayerError,
      /unknown character set \(x-klingon\)/,
    );
    assert.doesNotMatch(err.message, /SALUD/);
    await failsWith(run('x-klingon', 'xml'), TransientPayerError, /x-klingon/);
  });
});
