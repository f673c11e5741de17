/**
 * The CAQH CORE Connectivity Rule vC2.2.0 envelope fields, shared by the SOAP and MIME wire formats: the
 * request we send, the authentication forms a config may use, and the reading of an answer's fields into
 * X12 text or a typed error.
 */
import { randomUUID } from 'node:crypto';
import { PayerAuthenticationError, type PayerCallOptions, TransientPayerError } from '../connector.ts';
import type { ConnectorDeps, GatewayConnector } from '../connector-deps.ts';
import type { CoreMimeConnector, CoreSoapConnector } from '../directory-schema.ts';
import { createGatewayAgent, exchange, type GatewayAnswer, requireX12, scrubGatewayText } from '../http.ts';

export const CORE_NS = 'http://www.caqh.org/SOAP/WSDL/CORERule2.2.0.xsd';
export const CORE_RULE_VERSION = '2.2.0';
export const PAYLOAD_TYPE_270 = 'X12_270_Request_005010X279A1';
export const PAYLOAD_TYPE_271 = 'X12_271_Response_005010X279A1';
export const PAYLOAD_TYPE_999 = 'X12_999_Response_005010X231A1';
/** Sic: the rule spells the TA1 payload type with `00501`. */
export const PAYLOAD_TYPE_TA1 = 'X12_TA1_Response_00501X231A1';
const ANSWER_PAYLOAD_TYPES = new Set([PAYLOAD_TYPE_271, PAYLOAD_TYPE_999, PAYLOAD_TYPE_TA1]);

/**
 * ErrorCodes that mean "your credentials", compared case-insensitively: the rule's own codes and the
 * spellings gateways are known to use. Any other non-Success code is transient.
 */
export const CORE_AUTH_ERROR_CODES: ReadonlySet<string> = new Set(
  [
    'UnAuthorized',
    'Unauthorized',
    'UserNameTokenMissing',
    'UsernameTokenMissing',
    'UserNameMissing',
    'PasswordMissing',
    'AuthenticationFailed',
    'InvalidCredentials',
    'CertificateInvalid',
  ].map((c) => c.toLowerCase()),
);

/** The fields of a real-time request, in the rule's order. */
export interface CoreRequest {
  PayloadType: string;
  ProcessingMode: 'RealTime';
  PayloadID: string;
  TimeStamp: string;
  SenderID: string;
  ReceiverID: string;
  CORERuleVersion: string;
  Payload: string;
}

/** Fields every Success answer must carry. */
const REQUIRED_ANSWER_FIELDS = [
  'PayloadType',
  'ProcessingMode',
  'PayloadID',
  'TimeStamp',
  'SenderID',
  'ReceiverID',
  'CORERuleVersion',
  'Payload',
] as const;

/** xs:dateTime in UTC to the second, as the rule's examples write it: 2026-11-24T10:15:30Z. */
export function coreTimeStamp(d: Date): string {
  return `${d.toISOString().slice(0, 19)}Z`;
}

interface CoreSession {
  /** Username and password, resolved per call so a rotated secret file takes effect. */
  credentials: (() => { username: string; password: string }) | undefined;
  tls: { cert?: string; key?: string };
  /** Secret values to scrub from gateway text (resolved now; rotation only widens what is scrubbed). */
  secrets: () => string[];
  request: (x12_270: string) => CoreRequest;
}

/**
 * Validates the authentication forms (a username with its password, a certificate with its key, at least
 * one of the two) and prepares what each call needs. Errors name fields, never values.
 */
function coreSession(
  connector: string,
  config: CoreSoapConnector | CoreMimeConnector,
  deps: ConnectorDeps,
): CoreSession {
  const pair = (a: 'username' | 'clientCert', b: 'password' | 'clientKey') => {
    if (Boolean(config[a]) !== Boolean(config[b])) {
      const [has, lacks] = config[a] ? [a, b] : [b, a];
      throw new Error(`${connector} connector: "${lacks}" is required with "${has}"`);
    }
    return Boolean(config[a]);
  };
  const password = pair('username', 'password');
  const certificate = pair('clientCert', 'clientKey');
  if (!password && !certificate) {
    throw new Error(
      `${connector} connector: configure "username" and "password", or "clientCert" and "clientKey"`,
    );
  }
  const credentials = password
    ? () => ({ username: deps.secret(config.username!), password: deps.secret(config.password!) })
    : undefined;
  const tls = certificate
    ? { cert: deps.secret(config.clientCert!), key: deps.secret(config.clientKey!) }
    : {};
  const now = deps.now ?? (() => new Date());
  const newPayloadId = deps.newPayloadId ?? randomUUID;
  const senderId = config.senderId ?? deps.senderId;
  const receiverId = config.receiverId ?? deps.receiverId;
  return {
    credentials,
    tls,
    secrets: () => (credentials ? Object.values(credentials()) : []),
    request: (x12_270) => ({
      PayloadType: PAYLOAD_TYPE_270,
      ProcessingMode: 'RealTime',
      PayloadID: newPayloadId(),
      TimeStamp: coreTimeStamp(now()),
      SenderID: senderId,
      ReceiverID: receiverId,
      CORERuleVersion: CORE_RULE_VERSION,
      Payload: x12_270,
    }),
  };
}

/** What differs between the two CORE transports: how a request is written, and how an answer is read. */
export interface CoreTransport {
  /** Refuses (throws a PermanentPayerError for) a 270 this transport cannot carry; absent: all can go. */
  refuse?: (x12_270: string) => void;
  headers: Record<string, string>;
  /** The request body, and its content type when it is not the fixed one in `headers`. */
  encode: (
    request: CoreRequest,
    credentials: { username: string; password: string } | undefined,
  ) => { body: string | Buffer; contentType?: string };
  /** The X12 in the gateway's answer, or the payer error it means. */
  read: (answer: GatewayAnswer, payloadId: string, now: Date, secrets: string[]) => string;
}

/**
 * A CORE connector: the session (authentication forms checked once), one TLS agent per connector, and a
 * call that writes the request with the transport, posts it, and reads the answer with the transport.
 */
export function coreConnector(
  connector: string,
  config: CoreSoapConnector | CoreMimeConnector,
  deps: ConnectorDeps,
  transport: CoreTransport,
): GatewayConnector {
  const session = coreSession(connector, config, deps);
  const agent = createGatewayAgent({ ...session.tls, ...(deps.ca ? { ca: deps.ca } : {}) });
  const now = deps.now ?? (() => new Date());
  return {
    name: connector,
    async send(x12_270: string, { signal, onExchangeId }: PayerCallOptions): Promise<string> {
      transport.refuse?.(x12_270);
      const request = session.request(x12_270);
      onExchangeId?.(request.PayloadID);
      const { body, contentType } = transport.encode(request, session.credentials?.());
      const headers = contentType ? { ...transport.headers, 'content-type': contentType } : transport.headers;
      const answer = await exchange(connector, config.url, {
        method: 'POST',
        headers,
        body,
        dispatcher: agent,
        signal,
      });
      return transport.read(answer, request.PayloadID, now(), session.secrets());
    },
    // Destroy, not close: a shutdown must not wait on a gateway that hangs; in-flight calls fail as transient.
    close: () => agent.destroy(),
  };
}

/** A gateway's code shown in a message only when it looks like a code, not free text. */
export function safeCode(value: string): string {
  const v = value.trim();
  return /^[A-Za-z][A-Za-z0-9._:-]{0,60}$/.test(v) ? v : '(unreadable)';
}

/**
 * An ErrorCode for a message: some gateways send words with spaces (`Payer Unavailable`), kept when they
 * look like a code (up to six words of code characters, no digit runs that could be an id); otherwise
 * `(unreadable)`.
 */
function safeErrorCode(value: string): string {
  const v = value.trim().replace(/\s+/g, ' ');
  if (!/^[A-Za-z][A-Za-z0-9._:-]*(?: [A-Za-z0-9._:-]+){0,5}$/.test(v) || v.length > 61) return '(unreadable)';
  return /\d{5,}/.test(v) ? '(unreadable)' : v;
}

/**
 * The X12 in a CORE answer's fields, or the error they describe. Checked in this order: the PayloadID
 * echoes ours (an answer to another request is never used), the ErrorCode (authentication codes apart),
 * every required field, a known PayloadType, and a Payload that is X12.
 */
export function readCoreAnswer(
  connector: string,
  fields: ReadonlyMap<string, string>,
  payloadId: string,
  secrets: readonly string[],
): string {
  const id = fields.get('PayloadID');
  if (id !== undefined && id.trim() !== payloadId) {
    throw new TransientPayerError(
      `${connector}: the answer's PayloadID does not echo the request's (${payloadId})`,
    );
  }
  const code = fields.get('ErrorCode')?.trim();
  if (code === undefined) throw new TransientPayerError(`${connector}: the answer lacks ErrorCode`);
  if (CORE_AUTH_ERROR_CODES.has(code.toLowerCase())) {
    throw new PayerAuthenticationError(
      `${connector}: the gateway refused our credentials (ErrorCode ${safeCode(code)})`,
    );
  }
  if (code !== 'Success') {
    const said = scrubGatewayText(fields.get('ErrorMessage') ?? '', secrets);
    throw new TransientPayerError(
      `${connector}: the gateway answered ErrorCode ${safeErrorCode(code)}${said ? `: ${said}` : ''}`,
    );
  }
  const missing = REQUIRED_ANSWER_FIELDS.filter((f) => !fields.get(f)?.trim());
  if (missing.length) throw new TransientPayerError(`${connector}: the answer lacks ${missing.join(', ')}`);
  const type = fields.get('PayloadType')!.trim();
  if (!ANSWER_PAYLOAD_TYPES.has(type)) {
    throw new TransientPayerError(
      `${connector}: the answer's PayloadType ${safeCode(type)} is not a 271, 999 or TA1`,
    );
  }
  return requireX12(connector, fields.get('Payload')!);
}
