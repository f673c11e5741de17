/**
 * A fake CAQH CORE MIME (multipart/form-data) gateway for tests and benchmarks, on 127.0.0.1:0. It reads
 * the form with undici's parser, checks every CORE field, the UserName/Password and the 270, records the
 * problems it found, and answers multipart/form-data with the CORE fields plus ErrorCode/ErrorMessage.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodeFormData, encodeFormData } from '../../../src/payers/core/multipart.ts';
import {
  type CoreFake,
  type CoreFakeOptions,
  type CoreFault,
  checkCoreRequest,
  coreAnswer,
  encodeIn,
} from './core-common.ts';
import {
  clientCertificate,
  FaultState,
  listen,
  playTransportFault,
  type RecordedRequest,
  readBody,
  reply,
} from './server.ts';

export type { CoreFake, CoreFakeOptions, CoreFault } from './core-common.ts';

/** The request parts CORE defines; anything else is a problem. */
const KNOWN_PARTS = new Set([
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

export async function startCoreMimeFake(options: CoreFakeOptions): Promise<CoreFake> {
  const state = new FaultState<CoreFault>();
  const requests: RecordedRequest[] = [];
  const answers: string[] = [];
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    const record: RecordedRequest = { problems: [], headers: req.headers, fields: {} };
    const cn = clientCertificate(req);
    if (cn) record.clientCertificate = cn;
    requests.push(record);
    if (req.method !== 'POST') record.problems.push('method is not POST');
    const type = req.headers['content-type'] ?? '';
    let fields: Map<string, string>;
    try {
      if (!type.toLowerCase().startsWith('multipart/form-data;')) throw new Error('not form-data');
      fields = decodeFormData(body, type);
    } catch {
      record.problems.push('not a readable multipart/form-data body');
      return reply(res, 400, 'text/plain', 'Bad Request');
    }
    record.fields = Object.fromEntries(fields);
    for (const name of fields.keys()) if (!KNOWN_PARTS.has(name)) record.problems.push('an unknown part');
    const user = fields.get('UserName');
    const credentials =
      user !== undefined ? { username: user, password: fields.get('Password') ?? '' } : null;
    const answer = coreAnswer(fields, checkCoreRequest(fields, options, credentials), record, state, options);
    const start = encodeFormData([['PayloadType', 'X12_271_Response_005010X279A1']]);
    const partial = {
      contentType: start.contentType,
      start: start.body.toString('utf8').replace(/--\r\n$/, ''),
    };
    if (await playTransportFault(state, res, partial)) return;
    if (answer.kind === 'soap-fault') return reply(res, 500, 'text/plain', 'Internal Server Error');
    if (answer.kind === 'broken-body') {
      // A boundary that never closes: the parser must refuse it.
      return reply(res, 200, partial.contentType, partial.start.slice(0, -10));
    }
    if (answer.payload && answer.fields.some(([name]) => name === 'Payload')) answers.push(answer.payload);
    const charset = options.answerCharset;
    if (!charset) {
      const form = encodeFormData(answer.fields);
      return reply(res, 200, form.contentType, form.body);
    }
    // Each part carries its own Content-Type charset (encodeFormData writes UTF-8 parts without one).
    const boundary = 'fakecharsetboundary';
    const parts = answer.fields.map(([name, value]) =>
      Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n` +
            `Content-Type: text/plain; charset=${charset}\r\n\r\n`,
          'latin1',
        ),
        encodeIn(value, charset),
        Buffer.from('\r\n', 'latin1'),
      ]),
    );
    parts.push(Buffer.from(`--${boundary}--\r\n`, 'latin1'));
    reply(res, 200, `multipart/form-data; boundary=${boundary}`, Buffer.concat(parts));
  };
  const server = await listen(handle, options.tls);
  return {
    url: `${server.origin}/core/mime`,
    requests,
    answers,
    setMode: (mode, opts) => state.set(mode, opts),
    get bytesStreamed() {
      return state.bytesStreamed;
    },
    close: server.close,
  };
}
