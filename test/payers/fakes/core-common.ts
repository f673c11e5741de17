/**
 * The CORE envelope checks and answers both CORE fakes share: every required request field and its
 * fixed value, a UUID PayloadID, an xs:dateTime UTC TimeStamp, the expected Sender/Receiver ids and
 * credentials, the 270 inside; then the answer fields for the current mode.
 */
import {
  CORE_RULE_VERSION,
  PAYLOAD_TYPE_270,
  PAYLOAD_TYPE_271,
  PAYLOAD_TYPE_999,
  PAYLOAD_TYPE_TA1,
} from '../../../src/payers/core/fields.ts';
import type { FakeOptions, FaultState, RecordedRequest, ServerTls, TransportFault } from './server.ts';
import { answer271, check270, reject999, rejectTa1 } from './x12.ts';

export type CoreFault =
  | 'soap-fault'
  | 'error-code'
  | 'auth-error-code'
  | '999'
  | 'ta1'
  | 'foreign-trace'
  | 'wrong-payload-id'
  | 'broken-body'
  | 'missing-field'
  | 'non-x12';

export interface CoreFakeOptions {
  /** NM109 of loop 2100A the 270 must carry. */
  payerId: string;
  /** CORE SenderID / ReceiverID the request must carry. */
  senderId: string;
  receiverId: string;
  /** Expected credentials; omit both for a certificate-only gateway. */
  username?: string;
  password?: string;
  /** HTTPS with a required client certificate. */
  tls?: ServerTls;
  now?: () => Date;
  /**
   * Answer this X12 to every request with a valid envelope, without reading the 270 or writing a 271
   * (benchmarks: the fake's own X12 work stays out of the connector's numbers).
   */
  fixedAnswer?: string;
  /**
   * Answer in this character set instead of UTF-8 (`ISO-8859-1`, `UTF-16` with a little-endian byte-order
   * mark; any other name is declared but written as latin1 bytes), declared where `charsetIn` says: the
   * HTTP Content-Type, the XML declaration only (SOAP), or each part's Content-Type (MIME).
   */
  answerCharset?: string;
  charsetIn?: 'http' | 'xml' | 'part';
}

/** Text as bytes in a fake's answer charset (see CoreFakeOptions.answerCharset). */
export function encodeIn(text: string, charset: string | undefined): Buffer {
  if (!charset || /^utf-?8$/i.test(charset)) return Buffer.from(text, 'utf8');
  if (/^utf-?16/i.test(charset)) return Buffer.from(`\ufeff${text}`, 'utf16le');
  return Buffer.from(text, 'latin1');
}

export interface CoreFake {
  /** The endpoint to configure as the connector's `url`. */
  url: string;
  requests: RecordedRequest[];
  /** The X12 payload of every answer sent, in order. */
  answers: string[];
  setMode(mode: CoreFault | TransportFault | 'ok', options?: FakeOptions): void;
  /** Bytes of the `huge` body written before the client hung up. */
  readonly bytesStreamed: number;
  close(): Promise<void>;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const XS_DATETIME_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

export interface CoreProblem {
  /** The CORE ErrorCode a gateway answers for it. */
  code: string;
  text: string;
}

/** Envelope fields and credentials; `null` credentials = the wire carried none. */
export function checkCoreRequest(
  fields: ReadonlyMap<string, string>,
  options: CoreFakeOptions,
  credentials: { username: string; password: string } | null,
): CoreProblem[] {
  const problems: CoreProblem[] = [];
  const expect = (name: string, ok: (v: string) => boolean, code: string) => {
    const v = fields.get(name);
    if (v === undefined || v === '') problems.push({ code: `${name}Required`, text: `${name} is missing` });
    else if (!ok(v)) problems.push({ code, text: `${name} is wrong` });
  };
  if (options.username !== undefined) {
    if (!credentials) problems.push({ code: 'UserNameTokenMissing', text: 'no credentials' });
    else if (credentials.username !== options.username || credentials.password !== options.password)
      problems.push({ code: 'UnAuthorized', text: 'wrong credentials' });
  }
  expect('PayloadType', (v) => v === PAYLOAD_TYPE_270, 'PayloadTypeIllegal');
  expect('ProcessingMode', (v) => v === 'RealTime', 'ProcessingModeIllegal');
  expect('PayloadID', (v) => UUID.test(v), 'PayloadIDIllegal');
  expect('TimeStamp', (v) => XS_DATETIME_UTC.test(v) && !Number.isNaN(Date.parse(v)), 'TimeStampIllegal');
  expect('SenderID', (v) => v === options.senderId, 'SenderIDIllegal');
  expect('ReceiverID', (v) => v === options.receiverId, 'ReceiverIDIllegal');
  expect('CORERuleVersion', (v) => v === CORE_RULE_VERSION, 'VersionMismatch');
  expect('Payload', () => true, 'PayloadIllegal');
  return problems;
}

export type CoreAnswer =
  | { kind: 'fields'; fields: [string, string][]; payload?: string }
  | { kind: 'soap-fault' }
  | { kind: 'broken-body' };

/**
 * The answer for a request whose envelope was checked: an ErrorCode for envelope problems, a 999 for a
 * broken 270 (as the payer behind the gateway would), else what the mode asks for.
 */
export function coreAnswer(
  fields: ReadonlyMap<string, string>,
  problems: CoreProblem[],
  record: RecordedRequest,
  state: FaultState<CoreFault>,
  options: CoreFakeOptions,
): CoreAnswer {
  const now = options.now?.() ?? new Date();
  const payloadId = fields.get('PayloadID') ?? '';
  const envelope = (type: string, payload: string, code = 'Success', message = 'None'): CoreAnswer => {
    const answer: [string, string][] = [
      ['PayloadType', type],
      ['ProcessingMode', 'RealTime'],
      ['PayloadID', payloadId],
      ['TimeStamp', `${now.toISOString().slice(0, 19)}Z`],
      ['SenderID', options.receiverId],
      ['ReceiverID', options.senderId],
      ['CORERuleVersion', CORE_RULE_VERSION],
      ['Payload', payload],
      ['ErrorCode', code],
      ['ErrorMessage', message],
    ];
    return { kind: 'fields', fields: answer, ...(code === 'Success' ? { payload } : {}) };
  };
  if (problems.length) {
    record.problems.push(...problems.map((p) => p.text));
    return envelope(PAYLOAD_TYPE_271, '', problems[0]!.code, problems[0]!.text);
  }
  if (options.fixedAnswer && state.mode === 'ok') return envelope(PAYLOAD_TYPE_271, options.fixedAnswer);
  const x12 = fields.get('Payload')!;
  const checked = check270(x12, options.payerId);
  record.problems.push(...checked.problems);
  if (checked.problems.length) return envelope(PAYLOAD_TYPE_999, reject999(checked, now));
  switch (state.mode) {
    case 'soap-fault':
      return { kind: 'soap-fault' };
    case 'broken-body':
      return { kind: 'broken-body' };
    case 'error-code':
      return envelope(
        PAYLOAD_TYPE_271,
        '',
        'Receiver.Down',
        'Payer system unavailable for member SBX1000001',
      );
    case 'auth-error-code':
      return envelope(PAYLOAD_TYPE_271, '', 'UnAuthorized', 'Username/password not valid');
    case '999':
      return envelope(PAYLOAD_TYPE_999, reject999(checked, now));
    case 'ta1':
      return envelope(PAYLOAD_TYPE_TA1, rejectTa1(checked, now));
    case 'foreign-trace':
      return envelope(PAYLOAD_TYPE_271, answer271(x12, now, 'ANOTHERINQUIRY01'));
    case 'non-x12':
      return envelope(PAYLOAD_TYPE_271, 'Eligibility service is in maintenance; please retry later.');
    case 'wrong-payload-id': {
      const answer = envelope(PAYLOAD_TYPE_271, answer271(x12, now));
      if (answer.kind === 'fields') answer.fields[2] = ['PayloadID', '00000000-0000-4000-8000-000000000000'];
      return answer;
    }
    case 'missing-field': {
      const answer = envelope(PAYLOAD_TYPE_271, answer271(x12, now));
      if (answer.kind === 'fields') answer.fields = answer.fields.filter(([name]) => name !== 'Payload');
      return answer;
    }
    default:
      return envelope(PAYLOAD_TYPE_271, answer271(x12, now));
  }
}
