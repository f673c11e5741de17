/**
 * A fake CAQH CORE SOAP 1.2 gateway for tests and benchmarks, on 127.0.0.1:0. It checks what a real one
 * checks (content type and action, SOAP 1.2 envelope, WS-Security UsernameToken with PasswordText, the
 * CORE element's namespace and fields, the 270) and records every request with the problems it found.
 * Problems are answered as a gateway would: SOAP Faults for an unreadable or unauthenticated message,
 * an ErrorCode for envelope fields, a 999 for a broken 270.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CORE_NS } from '../../../src/payers/core/fields.ts';
import { PASSWORD_TEXT, SOAP12_NS, WSSE_NS } from '../../../src/payers/core/soap.ts';
import { cdata, childrenNamed, escapeXml, parseXml, type XmlElement } from '../../../src/payers/core/xml.ts';
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

const SOAP_TYPE = 'application/soap+xml; charset=UTF-8';
const ANSWER_START = `<?xml version="1.0" encoding="UTF-8"?><soap:Envelope xmlns:soap="${SOAP12_NS}"><soap:Body>`;

export function soapFault(code: 'Sender' | 'Receiver', reason: string, subcode?: string): string {
  const sub = subcode
    ? `<soap:Subcode><soap:Value xmlns:wsse="${WSSE_NS}">wsse:${subcode}</soap:Value></soap:Subcode>`
    : '';
  return (
    `${ANSWER_START}<soap:Fault><soap:Code><soap:Value>soap:${code}</soap:Value>${sub}</soap:Code>` +
    `<soap:Reason><soap:Text xml:lang="en">${escapeXml(reason)}</soap:Text></soap:Reason></soap:Fault>` +
    '</soap:Body></soap:Envelope>'
  );
}

export function soapAnswer(fields: [string, string][]): string {
  const children = fields
    .map(([name, value]) => `<${name}>${name === 'Payload' ? cdata(value) : escapeXml(value)}</${name}>`)
    .join('');
  return (
    `${ANSWER_START}<cor:COREEnvelopeRealTimeResponse xmlns:cor="${CORE_NS}">${children}` +
    '</cor:COREEnvelopeRealTimeResponse></soap:Body></soap:Envelope>'
  );
}

type Read =
  | { fault: string; status: number; problem: string }
  | { fields: Map<string, string>; credentials: { username: string; password: string } | null };

/** The CORE fields and credentials of a request, or the fault a gateway answers when it cannot read them. */
function readRequest(req: IncomingMessage, body: Buffer): Read {
  const type = req.headers['content-type'] ?? '';
  const params = type.split(';').map((p) => p.trim());
  if (params[0]?.toLowerCase() !== 'application/soap+xml') {
    return {
      fault: soapFault('Sender', 'Not SOAP 1.2'),
      status: 415,
      problem: 'content type is not SOAP 1.2',
    };
  }
  if (
    !params.some((p) => /^charset="?utf-8"?$/i.test(p)) ||
    !params.includes('action="RealTimeTransaction"')
  ) {
    return { fault: soapFault('Sender', 'Wrong action'), status: 400, problem: 'charset or action is wrong' };
  }
  let doc: XmlElement;
  try {
    doc = parseXml(body.toString('utf8'));
  } catch {
    return { fault: soapFault('Sender', 'Malformed XML'), status: 400, problem: 'malformed XML' };
  }
  const bodies = doc.ns === SOAP12_NS && doc.name === 'Envelope' ? childrenNamed(doc, SOAP12_NS, 'Body') : [];
  const request =
    bodies.length === 1 ? childrenNamed(bodies[0]!, CORE_NS, 'COREEnvelopeRealTimeRequest') : [];
  if (request.length !== 1) {
    return {
      fault: soapFault('Sender', 'No CORE request'),
      status: 400,
      problem: 'no SOAP 1.2 CORE request',
    };
  }
  const fields = new Map<string, string>();
  for (const child of request[0]!.children) {
    if (child.ns !== '' || fields.has(child.name))
      return {
        fault: soapFault('Sender', 'Bad field'),
        status: 400,
        problem: 'a field is qualified or repeated',
      };
    fields.set(child.name, child.text);
  }
  return { fields, credentials: readSecurity(doc) };
}

/** Username and PasswordText password of the WS-Security header; null when absent or malformed. */
function readSecurity(doc: XmlElement): { username: string; password: string } | null {
  const header = childrenNamed(doc, SOAP12_NS, 'Header')[0];
  const security = header && childrenNamed(header, WSSE_NS, 'Security')[0];
  if (!security) return null;
  const understood = security.attributes.find((a) => a.ns === SOAP12_NS && a.name === 'mustUnderstand');
  if (understood && understood.value !== 'true' && understood.value !== '1') return null;
  const token = childrenNamed(security, WSSE_NS, 'UsernameToken')[0];
  const username = token && childrenNamed(token, WSSE_NS, 'Username')[0];
  const password = token && childrenNamed(token, WSSE_NS, 'Password')[0];
  if (!username || !password) return null;
  const type = password.attributes.find((a) => a.ns === '' && a.name === 'Type')?.value;
  if (type !== PASSWORD_TEXT) return null;
  return { username: username.text, password: password.text };
}

export async function startCoreSoapFake(options: CoreFakeOptions): Promise<CoreFake> {
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
    const read = readRequest(req, body);
    if ('fault' in read) {
      record.problems.push(read.problem);
      return reply(res, read.status, SOAP_TYPE, read.fault);
    }
    record.fields = Object.fromEntries(read.fields);
    if (options.username !== undefined && !read.credentials) {
      record.problems.push('no WS-Security UsernameToken with a PasswordText password');
      return reply(
        res,
        400,
        SOAP_TYPE,
        soapFault('Sender', 'Security token missing', 'InvalidSecurityToken'),
      );
    }
    const answer = coreAnswer(
      read.fields,
      checkCoreRequest(read.fields, options, read.credentials),
      record,
      state,
      options,
    );
    if (await playTransportFault(state, res, { contentType: SOAP_TYPE, start: ANSWER_START })) return;
    if (answer.kind === 'soap-fault') {
      return reply(res, 500, SOAP_TYPE, soapFault('Receiver', `Backend timeout for member 'SBX1000001'`));
    }
    if (answer.kind === 'broken-body') {
      return reply(
        res,
        200,
        SOAP_TYPE,
        `${ANSWER_START}<cor:COREEnvelopeRealTimeResponse xmlns:cor="${CORE_NS}"><Payload>`,
      );
    }
    if (answer.payload && answer.fields.some(([name]) => name === 'Payload')) answers.push(answer.payload);
    const charset = options.answerCharset;
    if (!charset) return reply(res, 200, SOAP_TYPE, soapAnswer(answer.fields));
    const xml = soapAnswer(answer.fields).replace('encoding="UTF-8"', `encoding="${charset}"`);
    const type =
      options.charsetIn === 'xml' ? 'application/soap+xml' : `application/soap+xml; charset=${charset}`;
    reply(res, 200, type, encodeIn(xml, charset));
  };
  const server = await listen(handle, options.tls);
  return {
    url: `${server.origin}/core/realtime`,
    requests,
    answers,
    setMode: (mode, opts) => state.set(mode, opts),
    get bytesStreamed() {
      return state.bytesStreamed;
    },
    close: server.close,
  };
}
