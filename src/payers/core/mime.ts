/**
 * `caqh-core-mime`: CAQH CORE Connectivity Rule vC2.2.0 real-time over HTTP MIME multipart. The CORE
 * envelope fields travel as multipart/form-data parts (UserName/Password when configured; an X.509
 * client certificate on the TLS connection otherwise), and the answer is a multipart/form-data body with
 * the same fields plus ErrorCode and ErrorMessage. See docs/payers.md for the error mapping.
 */
import { type PayerCallOptions, TransientPayerError } from '../connector.ts';
import type { ConnectorDeps, GatewayConnector } from '../connector-deps.ts';
import type { CoreMimeConnector } from '../directory-schema.ts';
import { createGatewayAgent, exchange, type GatewayAnswer, htmlPage, statusError } from '../http.ts';
import { type CoreRequest, coreSession, readCoreAnswer } from './fields.ts';
import { decodeFormData, encodeFormData, MultipartError } from './multipart.ts';

const NAME = 'caqh-core-mime';

export function createCoreMimeConnector(config: CoreMimeConnector, deps: ConnectorDeps): GatewayConnector {
  const session = coreSession(NAME, config, deps);
  const agent = createGatewayAgent({ ...session.tls, ...(deps.ca ? { ca: deps.ca } : {}) });
  const now = deps.now ?? (() => new Date());
  return {
    name: NAME,
    async send(x12_270: string, { signal, onExchangeId }: PayerCallOptions): Promise<string> {
      const request = session.request(x12_270);
      onExchangeId?.(request.PayloadID);
      const form = mimeFields(request, session.credentials?.());
      const answer = await exchange(NAME, config.url, {
        method: 'POST',
        headers: { 'content-type': form.contentType, accept: 'multipart/form-data' },
        body: form.body,
        dispatcher: agent,
        signal,
      });
      return readMimeAnswer(answer, request.PayloadID, now(), session.secrets());
    },
    // Destroy, not close: a shutdown must not wait on a gateway that hangs; in-flight calls fail as transient.
    close: () => agent.destroy(),
  };
}

/** The request parts in the rule's order. */
export function mimeFields(r: CoreRequest, credentials?: { username: string; password: string }) {
  return encodeFormData([
    ['ProcessingMode', r.ProcessingMode],
    ['PayloadType', r.PayloadType],
    ['PayloadID', r.PayloadID],
    ['TimeStamp', r.TimeStamp],
    ...(credentials
      ? ([
          ['UserName', credentials.username],
          ['Password', credentials.password],
        ] as const)
      : []),
    ['SenderID', r.SenderID],
    ['ReceiverID', r.ReceiverID],
    ['CORERuleVersion', r.CORERuleVersion],
    ['Payload', r.Payload],
  ]);
}

function readMimeAnswer(answer: GatewayAnswer, payloadId: string, now: Date, secrets: string[]): string {
  if (answer.status < 200 || answer.status >= 300) throw statusError(NAME, answer, now);
  if (answer.mediaType === 'text/html') throw htmlPage(NAME, answer.status);
  if (answer.mediaType !== 'multipart/form-data') {
    throw new TransientPayerError(`${NAME}: the answer is not multipart/form-data`);
  }
  let fields: Map<string, string>;
  try {
    fields = decodeFormData(answer.body, answer.contentType);
  } catch (err) {
    if (err instanceof MultipartError)
      throw new TransientPayerError(`${NAME}: the answer is malformed multipart`);
    throw err;
  }
  return readCoreAnswer(NAME, fields, payloadId, secrets);
}
