/**
 * Which code serves each connector `type` of the payers file. The directory loader is written against
 * this map only (and tests inject their own), so the connectors themselves plug in here and nowhere else.
 */
import type { PayerConnector } from './connector.ts';
import type { ConnectorDeps } from './connector-deps.ts';
import { createCoreMimeConnector, createCoreSoapConnector } from './core/index.ts';
import type { CoreMimeConnector, CoreSoapConnector, X12JsonConnector } from './directory-schema.ts';
import { createX12JsonConnector } from './x12-json/index.ts';

export type { ConnectorDeps } from './connector-deps.ts';

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

/** The connectors of this build, one per wire format (docs/payers.md, "Connectors"). */
export const CONNECTOR_FACTORIES: ConnectorFactories = {
  'caqh-core-soap': createCoreSoapConnector,
  'caqh-core-mime': createCoreMimeConnector,
  'x12-json': createX12JsonConnector,
};
