/**
 * `caqh-core-soap`: CAQH CORE Connectivity Rule vC2.2.0 real-time over SOAP 1.2. WS-Security
 * UsernameToken (PasswordText) when a username is configured, an X.509 client certificate on the TLS
 * connection when one is; the 270 travels as CDATA in `COREEnvelopeRealTimeRequest/Payload` and the
 * answer's `Payload` (a 271, 999 or TA1) is returned as it came. See docs/payers.md for the error mapping.
 */

import { charsetOf, decodeXml, safeLabel, UnknownCharsetError } from '../charset.ts';
import { PayerAuthenticationError, PermanentPayerError, TransientPayerError } from '../connector.ts';
import type { ConnectorDeps, GatewayConnector } from '../connector-deps.ts';
import type { CoreSoapConnector } from '../directory-schema.ts';
import { type GatewayAnswer, htmlPage, scrubGatewayText, statusError } from '../http.ts';
import { CORE_NS, type CoreRequest, coreConnector, readCoreAnswer, safeCode } from './fields.ts';
import {
  cdata,
  childrenNamed,
  escapeXml,
  hasIllegalXmlChar,
  parseXml,
  type XmlElement,
  XmlError,
} from './xml.ts';

export const SOAP12_NS = 'http://www.w3.org/2003/05/soap-envelope';
const SOAP11_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
export const WSSE_NS = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd';
export const PASSWORD_TEXT =
  'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordText';
export const SOAP_CONTENT_TYPE = 'application/soap+xml; charset=UTF-8; action="RealTimeTransaction"';
/** WS-Security fault subcodes that mean the credentials, not the message, were refused. */
const WSSE_AUTH_FAULTS = new Set(['FailedAuthentication', 'InvalidSecurityToken']);
const XML_TYPES = new Set(['application/soap+xml', 'application/xml', 'text/xml']);

const NAME = 'caqh-core-soap';

export function createCoreSoapConnector(config: CoreSoapConnector, deps: ConnectorDeps): GatewayConnector {
  return coreConnector(NAME, config, deps, {
    refuse: (x12_270) => {
      if (hasIllegalXmlChar(x12_270)) {
        throw new PermanentPayerError(`${NAME}: the 270 holds a control character XML 1.0 cannot carry`);
      }
    },
    headers: { 'content-type': SOAP_CONTENT_TYPE, accept: 'application/soap+xml' },
    encode: (request, credentials) => ({ body: soapEnvelope(request, credentials) }),
    read: readSoapAnswer,
  });
}

export function soapEnvelope(r: CoreRequest, credentials?: { username: string; password: string }): string {
  const security = credentials
    ? `<soap:Header><wsse:Security xmlns:wsse="${WSSE_NS}" soap:mustUnderstand="true"><wsse:UsernameToken>` +
      `<wsse:Username>${escapeXml(credentials.username)}</wsse:Username>` +
      `<wsse:Password Type="${PASSWORD_TEXT}">${escapeXml(credentials.password)}</wsse:Password>` +
      '</wsse:UsernameToken></wsse:Security></soap:Header>'
    : '';
  const field = (name: Exclude<keyof CoreRequest, 'Payload'>) => `<${name}>${escapeXml(r[name])}</${name}>`;
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    `<soap:Envelope xmlns:soap="${SOAP12_NS}" xmlns:cor="${CORE_NS}">${security}<soap:Body>` +
    '<cor:COREEnvelopeRealTimeRequest>' +
    field('PayloadType') +
    field('ProcessingMode') +
    field('PayloadID') +
    field('TimeStamp') +
    field('SenderID') +
    field('ReceiverID') +
    field('CORERuleVersion') +
    `<Payload>${cdata(r.Payload)}</Payload>` +
    '</cor:COREEnvelopeRealTimeRequest></soap:Body></soap:Envelope>'
  );
}

function readSoapAnswer(answer: GatewayAnswer, payloadId: string, now: Date, secrets: string[]): string {
  const ok = answer.status >= 200 && answer.status < 300;
  if (answer.status === 401 || answer.status === 403) throw statusError(NAME, answer, now);
  if (answer.mediaType === 'text/html') throw htmlPage(NAME, answer.status);
  let doc: XmlElement | undefined;
  if (XML_TYPES.has(answer.mediaType) && answer.body.length) {
    try {
      // The HTTP charset, a byte-order mark or the XML declaration names the encoding (UTF-16 included).
      doc = parseXml(decodeXml(answer.body, charsetOf(answer.contentType)));
    } catch (err) {
      if (err instanceof UnknownCharsetError) {
        throw new TransientPayerError(
          `${NAME}: the answer is in an unknown character set (${safeLabel(err.label)})`,
        );
      }
      if (!(err instanceof XmlError)) throw err;
      if (ok) throw new TransientPayerError(`${NAME}: the answer is malformed XML`);
    }
  }
  if (!doc) {
    if (!ok) throw statusError(NAME, answer, now);
    throw new TransientPayerError(
      `${NAME}: the answer is not SOAP (${safeCode(answer.mediaType || 'no content type')})`,
    );
  }
  const body = soapBody(doc);
  const fault = childrenNamed(body, SOAP12_NS, 'Fault')[0];
  if (fault) throw faultError(fault, answer, now, secrets);
  if (!ok) throw statusError(NAME, answer, now);
  const responses = childrenNamed(body, CORE_NS, 'COREEnvelopeRealTimeResponse');
  if (responses.length !== 1) {
    throw new TransientPayerError(`${NAME}: the SOAP body holds no single COREEnvelopeRealTimeResponse`);
  }
  const fields = new Map<string, string>();
  for (const child of responses[0]!.children) {
    if (child.ns !== '' && child.ns !== CORE_NS) continue;
    if (fields.has(child.name))
      throw new TransientPayerError(`${NAME}: the answer repeats ${safeCode(child.name)}`);
    fields.set(child.name, child.text);
  }
  return readCoreAnswer(NAME, fields, payloadId, secrets);
}

function soapBody(doc: XmlElement): XmlElement {
  if (doc.name !== 'Envelope' || doc.ns !== SOAP12_NS) {
    const why = doc.ns === SOAP11_NS ? 'a SOAP 1.1 envelope, not SOAP 1.2' : 'not a SOAP 1.2 envelope';
    throw new TransientPayerError(`${NAME}: the answer is ${why}`);
  }
  const bodies = childrenNamed(doc, SOAP12_NS, 'Body');
  if (bodies.length !== 1) throw new TransientPayerError(`${NAME}: the SOAP envelope has no single Body`);
  return bodies[0]!;
}

/** `env:Receiver` / `wsse:FailedAuthentication`, local parts only; the reason text is scrubbed. */
function faultError(
  fault: XmlElement,
  answer: GatewayAnswer,
  now: Date,
  secrets: string[],
): TransientPayerError {
  const child = (parent: XmlElement | undefined, name: string) =>
    parent ? childrenNamed(parent, SOAP12_NS, name)[0] : undefined;
  const code = child(fault, 'Code');
  const local = (value: XmlElement | undefined) => value?.text.trim().split(':').pop() ?? '';
  const codes = [local(child(code, 'Value'))];
  for (let sub = child(code, 'Subcode'); sub; sub = child(sub, 'Subcode'))
    codes.push(local(child(sub, 'Value')));
  const named = codes.filter(Boolean).map(safeCode).join('/') || '(no code)';
  const reason = scrubGatewayText(child(child(fault, 'Reason'), 'Text')?.text ?? '', secrets);
  if (codes.some((c) => WSSE_AUTH_FAULTS.has(c))) {
    return new PayerAuthenticationError(`${NAME}: the gateway refused our credentials (SOAP Fault ${named})`);
  }
  const http = statusError(NAME, answer, now);
  return new TransientPayerError(
    `${NAME}: the gateway answered a SOAP Fault ${named} (HTTP ${answer.status})${reason ? `: ${reason}` : ''}`,
    http.retryAfterMs,
  );
}
