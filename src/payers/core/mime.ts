/**
 * `caqh-core-mime`: CAQH CORE Connectivity Rule vC2.2.0 real-time over HTTP MIME multipart. The CORE
 * envelope fields travel as multipart/form-data parts (UserName/Password when configured; an X.509
 * client certificate on the TLS connection otherwise), and the answer is a multipart/form-data body with
 * the same fields plus ErrorCode and ErrorMessage. See docs/payers.md for the error mapping.
 */
import { safeLabel, UnknownCharsetError } from '../charset.ts';
import { TransientPayerError } from '../connector.ts';
import type { ConnectorDeps, GatewayConnector } from '../connector-deps.ts';
import type { CoreMimeConnector } from '../directory-schema.ts';
import { type GatewayAnswer, htmlPage, statusError } from '../http.ts';
import { type CoreRequest, coreConnector, readCoreAnswer } from './fields.ts';
import { decodeFormData, encodeFormData, MultipartError } from './multipart.ts';

const NAME = 'caqh-core-mime';

export function createCoreMimeConnector(config: CoreMimeConnector, deps: ConnectorDeps): GatewayConnector {
  return coreConnector(NAME, config, deps, {
    headers: { accept: 'multipart/form-data' },
    encode: (request, credentials) => {
      const form = mimeFields(request, credentials);
      return { body: form.body, contentType: form.contentType };
    },
    read: readMimeAnswer,
  });
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
    if (err instanceof UnknownCharsetError) {
      throw new TransientPayerError(
        `${NAME}: a part of the answer is in an unknown character set (${safeLabel(err.label)})`,
      );
    }
    throw err;
  }
  return readCoreAnswer(NAME, fields, payloadId, secrets);
}
