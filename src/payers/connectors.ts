/**
 * Which code serves each connector `type` of the payers file. The directory loader is written against
 * this map only (and tests inject their own), so the connectors themselves plug in here and nowhere else.
 */
import type { PayerConnector } from './connector.ts';
import type {
  ConnectorType,
  CoreMimeConnector,
  CoreSoapConnector,
  SecretRef,
  X12JsonConnector,
} from './directory-schema.ts';

/** What a connector gets besides its own config: resolved secrets and the envelope ids it must send. */
export interface ConnectorDeps {
  /** The value of a secret reference taken from the connector's own config (resolved at start). */
  secret: (ref: SecretRef) => string;
  /** ISA06/GS02 of the 270 (the connector's `senderId`, else `X12_SENDER_ID`); CORE's `SenderID`. */
  senderId: string;
  /** ISA08/GS03 of the 270 (the connector's `receiverId`, else the payer's `payerId`); CORE's `ReceiverID`. */
  receiverId: string;
  now?: () => Date;
  newPayloadId?: () => string;
}

export type ConnectorFactory<C> = (config: C, deps: ConnectorDeps) => PayerConnector;

export interface ConnectorFactories {
  'caqh-core-soap': ConnectorFactory<CoreSoapConnector>;
  'caqh-core-mime': ConnectorFactory<CoreMimeConnector>;
  'x12-json': ConnectorFactory<X12JsonConnector>;
}

/** Raised by a factory for a config it cannot serve; the loader reports it beside the entry's path. */
export class ConnectorUnavailableError extends Error {
  override name = 'ConnectorUnavailableError';
}

const notBuiltIn =
  (type: Exclude<ConnectorType, 'sandbox'>): ConnectorFactory<unknown> =>
  () => {
    throw new ConnectorUnavailableError(`connector type ${type} is not available in this build`);
  };

/**
 * The connectors of this build. Each is replaced by its real factory (src/payers/core/,
 * src/payers/x12-json/) when those modules land; until then a payers file naming one stops the start.
 */
export const CONNECTOR_FACTORIES: ConnectorFactories = {
  'caqh-core-soap': notBuiltIn('caqh-core-soap'),
  'caqh-core-mime': notBuiltIn('caqh-core-mime'),
  'x12-json': notBuiltIn('x12-json'),
};
