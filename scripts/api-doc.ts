// docs/api.md, written from the OpenAPI document: the status codes of the API and why each is answered, per
// operation from the document's responses. `npm run docs:api` starts the service on a temporary store and
// writes the file; test/api/openapi.test.ts holds the file equal to apiDoc(the served document).
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export const API_DOC = 'docs/api.md';

interface Operation {
  operationId: string;
  summary: string;
  responses: Record<string, { description: string }>;
}
interface Document {
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, unknown>;
  components: { schemas: Record<string, unknown> };
}

/** What each status means across the API, and the one that is never answered (409): the document's codes. */
const OVERVIEW: [status: number, code: string, why: string][] = [
  [
    200,
    '—',
    'A read (or a monitor paused or resumed) succeeded. A check that FAILED is still read with 200: its `errors` say why.',
  ],
  [
    201,
    '—',
    'A monitor was created: the body is the monitor, with its first due time. On `/fhir/R4`, a CoverageEligibilityRequest was created (its check runs asynchronously), with `Location`.',
  ],
  [
    202,
    '—',
    'A submit (a check or a batch) was accepted: stored, and run asynchronously. The body has the id to poll.',
  ],
  [204, '—', 'A monitor was deleted; no body.'],
  [
    400,
    'ValidationException',
    'The request is wrong: invalid JSON, a field that breaks the schema or a rule (the message names each field), an unknown query parameter, a malformed Idempotency-Key or URL.',
  ],
  [
    401,
    'UnauthorizedException',
    'No `Authorization: Key <API key>` header, another scheme, or an unknown or revoked key.',
  ],
  [
    403,
    'AccessDeniedException',
    'The key is valid but lacks the scope of the operation (`eligibility:read` to read, `eligibility:write` to submit), or the organization is not enabled for eligibility checks.',
  ],
  [
    404,
    'ResourceNotFoundException',
    "No such check, batch or monitor in your organization (another organization's is a 404 too, never a 403), or no such route: any path the API does not serve answers 404 with the envelope.",
  ],
  [
    405,
    'ValidationException',
    'The path exists but not with this method (`GET /api/eligibility`); the `Allow` header lists the methods it answers.',
  ],
  [
    409,
    '—',
    'Not answered by this API. Reusing an Idempotency-Key with a different body is a 422; with the same body it answers the original 202 again, with `Idempotent-Replayed: true`.',
  ],
  [
    413,
    'ValidationException',
    'The body is larger than the operation takes (64 KB for a check, 16 MB for a batch).',
  ],
  [
    415,
    'ValidationException',
    'A body sent with a `Content-Type` other than `application/json` (a `; charset=` parameter is fine), or with none.',
  ],
  [422, 'ValidationException', 'The Idempotency-Key was used in the last 24 hours with a different body.'],
  [
    429,
    'ThrottlingException',
    "The key's rate limit, or for writes its organization's across all its keys, is exhausted (or, for batches, the organization has too many batch checks in progress; for monitors, it has MONITOR_MAX_PER_ORGANIZATION of them). Wait `Retry-After` seconds; the `RateLimit-*` headers of every authenticated answer say how much is left.",
  ],
  [
    500,
    'InternalFailureException',
    'An unexpected error; the message carries a reference to quote to support. Never caused by what you sent.',
  ],
  [
    503,
    'InternalFailureException',
    'The service cannot reach its database right now (failover, restart). Retry after `Retry-After` seconds; nothing was stored.',
  ],
];

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

export function apiDoc(doc: Document): string {
  const lines = [
    '# The HTTP API: operations and status codes',
    '',
    '<!-- Generated from the OpenAPI document by `npm run docs:api` (scripts/api-doc.ts); test/api/openapi.test.ts',
    "     fails when it is stale. Edit the operations' responses in src/api/routes/, the overview in the script. -->",
    '',
    `The service describes its API in an OpenAPI 3.1 document at \`/openapi.json\` (interface version`,
    `${doc.info.version}), rendered as a browsable reference at \`/docs\`. Every request needs`,
    '`Authorization: Key <API key>` (create a key in the portal under Settings > API keys); every error is',
    'answered with one JSON envelope, `{ "code": "...", "message": "..." }`, whose `code` is one of',
    '`ValidationException`, `UnauthorizedException`, `AccessDeniedException`, `ResourceNotFoundException`,',
    '`ThrottlingException` and `InternalFailureException`. Messages say what to change; they never echo',
    'patient data.',
    '',
    'The FHIR operations under `/fhir/R4` (tag FHIR; docs/fhir.md) answer the same statuses for the same',
    'reasons, but their bodies are FHIR resources: every error is an `OperationOutcome` whose issue `code`',
    '(`invalid`, `structure`, `required`, `value`, `login`, `forbidden`, `not-found`, `not-supported`,',
    '`too-costly`, `throttled`, `exception`, `transient`) stands where the envelope has its `code`, and whose',
    '`expression` names the element at fault. There the key may also be sent as `Authorization: Bearer <API key>`.',
    '',
    '## Status codes',
    '',
    '| Status | `code` | Why |',
    '| --- | --- | --- |',
    ...OVERVIEW.map(
      ([status, code, why]) => `| ${status} | ${code === '—' ? '—' : `\`${code}\``} | ${cell(why)} |`,
    ),
    '',
    'A client that retries should retry 429 and 503 (after `Retry-After`) and 500, never the other 4xx: the',
    'same request would be refused again. A submit is safe to retry with the same `Idempotency-Key`.',
    '',
    '## Operations',
    '',
    'Each operation answers only the statuses listed under it (test/api/openapi.test.ts sends sample',
    'requests and checks each answer is one of them).',
    '',
  ];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      lines.push(`### ${method.toUpperCase()} \`${path}\`: ${op.summary}`, '');
      lines.push(`Operation id \`${op.operationId}\`.`, '');
      lines.push('| Status | Why |', '| --- | --- |');
      for (const [status, response] of Object.entries(op.responses)) {
        lines.push(`| ${status} | ${cell(response.description)} |`);
      }
      lines.push('');
    }
  }
  lines.push(
    '## Webhooks',
    '',
    `The document's \`webhooks\` section describes each event the service sends (${Object.keys(doc.webhooks)
      .map((n) => `\`${n}\``)
      .join(
        ', ',
      )}), its body schema, its headers and how to verify the signature; docs/webhooks.md says more.`,
    '',
    '## Outside the API',
    '',
    '`GET /healthz` (the process answers), `GET /readyz` (503 with the envelope while the database cannot',
    'serve), `GET /metrics` (Prometheus) and the portal under `/portal` are not part of the documented API;',
    'docs/deploy.md describes them.',
    '',
    '## Schemas',
    '',
    'Every type is a named schema under `components.schemas`, so code generators give it a name:',
    `${Object.keys(doc.components.schemas)
      .map((n) => `\`${n}\``)
      .join(', ')}.`,
    '',
  );
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { startTestService } = await import('../test/helpers/service.ts');
  const svc = await startTestService({ roles: { api: true, worker: false } });
  try {
    const doc = (await (await fetch(`${svc.url}/openapi.json`)).json()) as Document;
    writeFileSync(API_DOC, apiDoc(doc));
    console.log(`wrote ${API_DOC}`);
  } finally {
    await svc.stop();
  }
}
