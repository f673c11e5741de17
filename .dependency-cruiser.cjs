/**
 * The import rules of src/ (docs/architecture.md): imports flow one way, cli → server → portal/api →
 * batches, monitors → workers, directory → checks → webhooks → payers → x12, benefits → contract, with store (and
 * tenancy) beside them as the data-access layer.
 * `npm run check` runs `depcruise src`; test/architecture.test.ts runs the same rules, on src/ and on a
 * planted violation of each kind.
 *
 * MAY_IMPORT lists, for each part of src/, the other parts it may import; anything else is an error. A part
 * may list only parts above it, so the allowed graph has no cycle and no cycle between folders can arise;
 * the `no-circular` rule forbids cycles between files, type-only imports included.
 */

/** Files at the top of src/ that every layer above the pure cores may import. */
const SHARED = ['config', 'ids', 'log', 'paths'];

/** What the parts between the cores and the HTTP layers (checks, webhooks, tenancy, workers) build on. */
const FOUNDATION = ['payers', 'x12', 'benefits', 'estimates', 'contract', 'store', ...SHARED];
/** The check lifecycle and what runs it: what the rooms above single checks (batches, monitors) build on. */
const CHECKS = ['checks', 'webhooks', 'tenancy', 'workers', 'directory', 'metrics', ...FOUNDATION];
/** What the HTTP layers (api, portal) build on: every room of the domain. */
const DOMAIN = ['batches', 'monitors', 'discovery', 'fees', ...CHECKS];
/** What the API builds on: the domain, and the FHIR face's mapping. */
const API = ['fhir', ...DOMAIN];

/** Part of src/ (a folder, or a file at the top of src/ without `.ts`) → parts it may import besides itself. */
const MAY_IMPORT = {
  // The spec's request/result types and schemas: a leaf.
  contract: [],
  // Pure cores (no I/O): only the contract and each other, one way (benefits reads x12, never the reverse).
  x12: ['contract'],
  benefits: ['contract', 'x12'],
  // The FHIR face's mapping: CoverageEligibilityRequest → the contract's request, a stored check →
  // CoverageEligibilityResponse, OperationOutcome. Pure; its routes are in api/, which imports it.
  fhir: ['contract', 'x12'],
  // What the patient pays for a charge, from a completed check's benefit entries (pure, like benefits).
  estimates: ['contract', 'benefits'],
  // Is ELIG_SECRET_KEY random enough? A pure estimate that configuration validation asks.
  'secret-strength': [],
  config: ['secret-strength'],
  ids: [],
  log: [],
  paths: [],
  // The data-access layer, beside the others: it knows no caller.
  store: ['contract', ...SHARED],
  // Connectors, the directory and its limits speak X12 to gateways; they never touch the database or read
  // benefits (the directory reaches the store through what its caller hands it).
  payers: ['x12', 'contract', ...SHARED],
  webhooks: FOUNDATION,
  // One intake for every entry point, the check lifecycle, verdicts, history.
  checks: ['webhooks', ...FOUNDATION],
  // Organizations, API keys, portal users and sessions, and the admin operations over them.
  tenancy: ['webhooks', ...FOUNDATION],
  workers: ['checks', 'webhooks', ...FOUNDATION],
  // The payer directory as every process shares it (database copy, reload, import) and the connection
  // limits' database store: the payers/ code plus the store it may not touch itself.
  directory: FOUNDATION,
  metrics: ['contract', 'store', ...SHARED],
  // The rooms above single checks: each turns its own requests into checks through the intake.
  batches: CHECKS,
  monitors: CHECKS,
  discovery: CHECKS,
  // An organization's fee schedule (estimates): its CSV read with the batch reader, then stored whole.
  fees: ['batches', ...CHECKS],
  api: API,
  // The portal reuses the API's key authenticator (to forget a revoked key at once); never the reverse.
  portal: ['api', ...API],
  server: ['portal', 'api', ...API],
  cli: ['server', 'portal', 'api', ...API],
};

const declared = [];
for (const [name, allowed] of Object.entries(MAY_IMPORT)) {
  const later = allowed.filter((other) => !declared.includes(other));
  if (later.length) throw new Error(`MAY_IMPORT: ${name} lists ${later.join(', ')}, not above it`);
  declared.push(name);
}

/**
 * The database drivers and the ORM: only src/store talks to the database, so only it may import them
 * (resolved from node_modules, or unresolved as in the scratch trees of test/architecture.test.ts).
 */
const DATABASE_PACKAGES = ['pg', '@electric-sql/pglite', 'drizzle-orm'];

/** Parts that may import no package and no Node module: typebox alone for the contract. */
const PURE = { contract: ['typebox'], x12: [], benefits: [], fhir: ['@medplum/fhirtypes'], estimates: [] };

const part = (name) => `^src/${name}(/|\\.ts$)`;
const anyOf = (names) => (names.length ? `^src/(${names.join('|')})(/|\\.ts$)` : '^$');

const layerRules = Object.entries(MAY_IMPORT).map(([name, allowed]) => ({
  name: `layers:${name}`,
  severity: 'error',
  comment: allowed.length
    ? `src/${name} may import only ${allowed.join(', ')} (see MAY_IMPORT in .dependency-cruiser.cjs and docs/architecture.md)`
    : `src/${name} imports nothing else in src/`,
  from: { path: part(name) },
  to: { path: '^src/', pathNot: anyOf([name, ...allowed]) },
}));

const pureRules = Object.entries(PURE).map(([name, packages]) => ({
  name: `pure:${name}`,
  severity: 'error',
  comment: packages.length
    ? `src/${name} may use no package but ${packages.join(', ')} and no Node module`
    : `src/${name} is a pure core: no package, no Node module (no I/O)`,
  from: { path: part(name) },
  to: {
    dependencyTypes: ['core', 'npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'],
    ...(packages.length ? { pathNot: `^node_modules/(${packages.join('|')})/` } : {}),
  },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycle between files (type-only imports count too).',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      comment: 'Every import resolves to a file or an installed package.',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
    {
      name: 'layers:unknown',
      severity: 'error',
      comment: 'Every part of src/ has a place in MAY_IMPORT (.dependency-cruiser.cjs).',
      from: { path: '^src/', pathNot: anyOf(Object.keys(MAY_IMPORT)) },
      to: {},
    },
    ...layerRules,
    ...pureRules,
    {
      name: 'store-only:database',
      severity: 'error',
      comment: `only src/store may import ${DATABASE_PACKAGES.join(', ')}: run SQL through a module of src/store (CONTRIBUTING.md "Where things go")`,
      from: { path: '^src/', pathNot: part('store') },
      to: { path: `^(node_modules/)?(${DATABASE_PACKAGES.join('|')})(/|$)` },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: '^node_modules' },
    // typebox publishes ESM only: resolve package exports the way Node does for `import`.
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.mjs', '.js', '.cjs', '.json'],
      // @medplum/fhirtypes is types only: its package names `types` and an empty `main`.
      mainFields: ['main', 'types'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
