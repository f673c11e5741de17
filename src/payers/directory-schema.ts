/**
 * The payer directory file (`PAYERS_FILE`): the shape operators write and scripts read. One TypeBox schema
 * is the validator, the TypeScript type and the documentation (docs/payers.md). Fields not listed are
 * refused, not ignored: a misspelt `timeoutMS` must not silently fall back to the default.
 *
 * Secrets are references, never literals: `{"env": "NAME"}` or `{"file": "/path"}`. They are resolved at
 * start (src/payers/secret-refs.ts) and live only in memory: never stored, logged or returned.
 */
import Type, { type Static } from 'typebox';

export const SecretRef = Type.Union(
  [
    Type.Object(
      { env: Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }) },
      { additionalProperties: false },
    ),
    Type.Object({ file: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  ],
  { description: 'A reference to a secret: an environment variable or a file (trailing newline trimmed).' },
);
export type SecretRef = Static<typeof SecretRef>;

const HttpUrl = Type.String({ pattern: '^https?://[^\\s]+$', description: 'http(s) URL of the gateway.' });
/** ISA06/ISA08 and GS02/GS03: up to 15 characters of the X12 basic set. */
const X12Id = Type.String({ minLength: 1, maxLength: 15, pattern: '^[A-Za-z0-9 .&/()#-]+$' });
const X12Qualifier = Type.String({ minLength: 2, maxLength: 2, pattern: '^[A-Z0-9]{2}$' });

/** What every connector may override in the envelope: the submitter and the receiver of the 270. */
const EnvelopeOverrides = {
  senderId: Type.Optional(X12Id),
  senderQualifier: Type.Optional(X12Qualifier),
  receiverId: Type.Optional(X12Id),
  receiverQualifier: Type.Optional(X12Qualifier),
  usageIndicator: Type.Optional(
    Type.Union([Type.Literal('P'), Type.Literal('T')], {
      description: "ISA15: `P` (production, the default) or `T` (test: a gateway's test environment).",
    }),
  ),
};

/**
 * CAQH CORE Connectivity Rule vC2.2.0: both envelopes (SOAP 1.2 with WS-Security, and HTTP MIME multipart)
 * take the same settings; a password (with its user name) or an X.509 client certificate authenticates.
 */
const coreConnector = <T extends 'caqh-core-soap' | 'caqh-core-mime'>(type: T) =>
  Type.Object(
    {
      type: Type.Literal(type),
      url: HttpUrl,
      ...EnvelopeOverrides,
      username: Type.Optional(SecretRef),
      password: Type.Optional(SecretRef),
      clientCert: Type.Optional(SecretRef),
      clientKey: Type.Optional(SecretRef),
    },
    { additionalProperties: false },
  );

export const CoreSoapConnector = coreConnector('caqh-core-soap');
export type CoreSoapConnector = Static<typeof CoreSoapConnector>;
export const CoreMimeConnector = coreConnector('caqh-core-mime');
export type CoreMimeConnector = Static<typeof CoreMimeConnector>;

export const ApiKeyAuth = Type.Object(
  { type: Type.Literal('api-key'), key: SecretRef },
  {
    additionalProperties: false,
    description: "Sends `Authorization: <key>` (Stedi's form, no scheme word).",
  },
);
export const OAuth2ClientCredentials = Type.Object(
  {
    type: Type.Literal('oauth2-client-credentials'),
    tokenUrl: HttpUrl,
    clientId: SecretRef,
    clientSecret: SecretRef,
    scope: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

/** Raw X12 over a clearinghouse JSON API (Stedi, Optum/Change Healthcare): `{"x12": "…"}` both ways. */
export const X12JsonConnector = Type.Object(
  {
    type: Type.Literal('x12-json'),
    url: HttpUrl,
    ...EnvelopeOverrides,
    auth: Type.Union([ApiKeyAuth, OAuth2ClientCredentials]),
  },
  { additionalProperties: false },
);
export type X12JsonConnector = Static<typeof X12JsonConnector>;

export const ConnectorConfig = Type.Union([CoreSoapConnector, CoreMimeConnector, X12JsonConnector]);
export type ConnectorConfig = Static<typeof ConnectorConfig>;
export const CONNECTOR_TYPES = ['caqh-core-soap', 'caqh-core-mime', 'x12-json'] as const;
export type ConnectorType = (typeof CONNECTOR_TYPES)[number] | 'sandbox';

/** Payer ids as clients submit them (`tradingPartnerServiceId`), the same domain the submit schema allows. */
const PayerKey = Type.String({ minLength: 1, maxLength: 50, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' });

/** A connection's name: what payers write in `connection`, and the `connection` label of metrics. */
export const CONNECTION_NAME_PATTERN = '^[a-z0-9][a-z0-9_-]{0,39}$';
const ConnectionName = Type.String({ pattern: CONNECTION_NAME_PATTERN });

/**
 * How a payer is asked for service types (docs/payers.md, "Payer profiles"): `repeat` (every code in one
 * repeated EQ01), `loops` (one EQ per code), `separate` (one 270 per code, the 271s merged), `generic-only`
 * (`30` alone).
 */
export const STC_STRATEGIES = ['repeat', 'loops', 'separate', 'generic-only'] as const;
export type StcStrategy = (typeof STC_STRATEGIES)[number];
const StcStrategySchema = Type.Union(STC_STRATEGIES.map((s) => Type.Literal(s)));

/**
 * Account-wide limits of a connection: they hold across every payer reached through it and across every
 * worker process (on PostgreSQL through the `connection_slots` and `connection_state` tables).
 */
export const ConnectionLimits = Type.Object(
  {
    concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 1024 })),
    ratePerSecond: Type.Optional(Type.Number({ minimum: 0.1, maximum: 10_000 })),
  },
  { additionalProperties: false },
);
export type ConnectionLimits = Static<typeof ConnectionLimits>;

/** What a connection adds to a connector: shared limits, the default profile of its payers, a time budget. */
const ConnectionFields = {
  limits: Type.Optional(ConnectionLimits),
  stcStrategy: Type.Optional(StcStrategySchema),
  timeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 600_000 })),
};
const options = { additionalProperties: false } as const;
export const ConnectionConfig = Type.Union([
  Type.Object({ ...CoreSoapConnector.properties, ...ConnectionFields }, options),
  Type.Object({ ...CoreMimeConnector.properties, ...ConnectionFields }, options),
  Type.Object({ ...X12JsonConnector.properties, ...ConnectionFields }, options),
]);
export type ConnectionConfig = Static<typeof ConnectionConfig>;

/** Whether enrollment with the payer is needed before eligibility checks, and whether it is done. */
export const ENROLLMENT_STATES = ['not-required', 'required', 'done'] as const;
export type EnrollmentState = (typeof ENROLLMENT_STATES)[number];

/** Member id formats a payer can declare (checks/member-id-format.ts checks them at submission). */
export const MEMBER_ID_FORMATS = ['mbi'] as const;
export type MemberIdFormat = (typeof MEMBER_ID_FORMATS)[number];

export const US_STATE_CODE_PATTERN = '^[A-Z]{2}$';

export const PayerDirectoryEntry = Type.Object(
  {
    id: PayerKey,
    name: Type.String({ minLength: 1, maxLength: 60, pattern: '^[^*~^:\\p{Cc}]+$' }),
    /** NM109 of loop 2100A, and the ISA/GS receiver unless the connector overrides it. */
    payerId: Type.String({ minLength: 1, maxLength: 80, pattern: '^[A-Za-z0-9 .&/()#-]+$' }),
    aliases: Type.Optional(Type.Array(PayerKey, { maxItems: 50 })),
    /** A connection of `connections`, or several in failover order. Either this or `connector`. */
    connection: Type.Optional(
      Type.Union([ConnectionName, Type.Array(ConnectionName, { minItems: 1, maxItems: 5 })]),
    ),
    /** This payer's own gateway (the form before connections): a private connection `payer:<id>`. */
    connector: Type.Optional(ConnectorConfig),
    concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 1024 })),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 600_000 })),
    /** The payer's member ids contain spaces or dashes, so submission keeps them (default: removed). */
    keepMemberIdSeparators: Type.Optional(Type.Boolean()),
    /** `mbi`: member ids are Medicare Beneficiary Identifiers; submits with another id are refused. */
    memberIdFormat: Type.Optional(Type.Union(MEMBER_ID_FORMATS.map((f) => Type.Literal(f)))),
    stcStrategy: Type.Optional(StcStrategySchema),
    /** False: the payer takes no eligibility inquiries through this service; submits are refused. */
    eligibility: Type.Optional(Type.Boolean()),
    enrollment: Type.Optional(Type.Union(ENROLLMENT_STATES.map((s) => Type.Literal(s)))),
    /** Two-letter codes of the US states the payer serves (payer search ranks by them). */
    states: Type.Optional(Type.Array(Type.String({ pattern: US_STATE_CODE_PATTERN }), { maxItems: 60 })),
    /**
     * True: the payer answers a demographic search (a 270 whose subscriber has a name and date of birth but
     * no member id), so insurance discovery may ask it (docs/discovery.md). Default false.
     */
    demographicSearch: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type PayerDirectoryEntry = Static<typeof PayerDirectoryEntry>;

export const PayerDirectoryFile = Type.Object(
  {
    connections: Type.Optional(
      Type.Record(Type.String({ pattern: CONNECTION_NAME_PATTERN }), ConnectionConfig),
    ),
    payers: Type.Array(PayerDirectoryEntry, { maxItems: 10_000 }),
  },
  { additionalProperties: false },
);
export type PayerDirectoryFile = Static<typeof PayerDirectoryFile>;

/** CORE's real-time expectation: an answer within 20 seconds. */
export const CORE_DEFAULT_TIMEOUT_MS = 20_000;
