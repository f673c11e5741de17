/**
 * What the payer directory hands to a gateway connector's factory besides its own config entry. Secrets
 * arrive as a resolver, so a connector never reads the environment or the file system itself and a
 * rotated file secret is picked up by the next call when the resolver re-reads it.
 */
import type { PayerConnector } from './connector.ts';
import type { SecretRef } from './directory-schema.ts';

export interface ConnectorDeps {
  /** Resolves a secret reference to its value (already validated at start; never throws at call time). */
  secret: (ref: SecretRef) => string;
  /**
   * CORE SenderID / ReceiverID defaults: the directory passes the configured X12 sender and the payer's
   * payerId; a connector config's `senderId` / `receiverId` override them.
   */
  senderId: string;
  receiverId: string;
  /** Clock for CORE TimeStamps, OAuth2 token expiry and Retry-After dates; default `new Date()`. */
  now?: () => Date;
  /** CORE PayloadID source; default `crypto.randomUUID`. */
  newPayloadId?: () => string;
  /**
   * Extra trust anchors (PEM) for the gateway's server certificate, added to Node's bundled CAs: a
   * gateway behind a private CA, and the tests' self-signed fakes.
   */
  ca?: string;
}

/** A gateway connector owns a keep-alive connection pool; `close()` releases it (shutdown, tests). */
export interface GatewayConnector extends PayerConnector {
  close(): Promise<void>;
}
