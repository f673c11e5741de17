/**
 * The OpenAPI 3.1 `webhooks` section: one POST per event type of src/contract/webhook-events.ts, with its
 * body schema, the headers every delivery carries (src/webhooks/sign.ts) and how to verify the signature.
 */
import { EVENT_TYPES } from '../contract/webhook-events.ts';
import { WEBHOOK_HEADERS } from '../webhooks/sign.ts';

/**
 * How a receiver checks a delivery (docs/contract.md "The completion webhook"; docs/webhooks.md "Verifying the
 * signature").
 */
export const SIGNATURE_VERIFICATION = [
  '**Verifying the signature** (sent when a signing secret is configured in the portal, Settings > Webhooks):',
  '',
  `1. Read the raw request body as bytes, before any JSON parsing.`,
  `2. Join the \`${WEBHOOK_HEADERS.timestamp}\` value as sent, a period, and the body: \`timestamp + "." + body\`.`,
  '3. Compute the HMAC-SHA256 of that with the signing secret (the whole string, `whsec_` prefix included) as the key, as lowercase hex.',
  `4. Compare it with \`${WEBHOOK_HEADERS.signature}\` in constant time (during the 24 h after a secret roll \`${WEBHOOK_HEADERS.previousSignature}\` carries the signature made with the previous secret).`,
  '5. Reject a timestamp more than 5 minutes away from your clock, either way (replay protection).',
  '',
  `Delivery is at least once: deduplicate by \`${WEBHOOK_HEADERS.id}\`. Answer 2xx within seconds; any other answer, or none, is retried with backoff. The package helper \`verifyWebhook\` (\`eligibility-service/webhooks\`) does steps 2 to 5.`,
].join('\n');

function header(name: string, description: string, required: boolean, schema: object = { type: 'string' }) {
  return { name, in: 'header', required, description, schema };
}

/** `reference` turns an `$id` schema into a `$ref` to its entry in `components.schemas`. */
export function webhookDescriptions(reference: (schema: object) => { $ref: string }) {
  return Object.fromEntries(
    EVENT_TYPES.map((t) => [
      t.name,
      {
        post: {
          summary: t.name,
          operationId: `webhook_${t.name.replace(/\W/g, '_')}`,
          description: `${t.description}\n\nSent as a POST to the organization's webhook URL with \`${WEBHOOK_HEADERS.event}: ${t.name}\`.\n\n${SIGNATURE_VERIFICATION}`,
          parameters: [
            header(
              WEBHOOK_HEADERS.id,
              'The event id: the same on every retry and on a resend. Deduplicate by it.',
              true,
            ),
            header(WEBHOOK_HEADERS.event, 'The event type.', true, { type: 'string', enum: [t.name] }),
            header(
              WEBHOOK_HEADERS.timestamp,
              'Unix time in seconds when this attempt was sent (new on every attempt); part of the signed text.',
              true,
              { type: 'string', pattern: '^[0-9]+$' },
            ),
            header(
              WEBHOOK_HEADERS.signature,
              'Lowercase hex HMAC-SHA256 of `timestamp.body` with the signing secret. Absent when no secret is configured.',
              false,
              { type: 'string', pattern: '^[0-9a-f]{64}$' },
            ),
            header(
              WEBHOOK_HEADERS.previousSignature,
              'The same signature made with the previous secret; only during the 24 h after a secret roll.',
              false,
              { type: 'string', pattern: '^[0-9a-f]{64}$' },
            ),
          ],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: reference(t.schema), example: t.example } },
          },
          responses: {
            '200': { description: 'Any 2xx acknowledges the delivery.' },
            default: { description: 'Anything else (or no answer in time) is retried with backoff.' },
          },
        },
      },
    ]),
  );
}
