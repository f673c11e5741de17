/**
 * A webhook receiver that verifies each delivery's signature with the client's verifyWebhook, answers
 * duplicates (retries of an event it already has) without processing them again, and prints what arrived.
 * Node 20+.
 *
 *   WEBHOOK_SECRET=whsec_... PORT=3000 npx tsx examples/webhook-receiver.ts
 *   npx elig webhook set --org ORG_ID --url http://127.0.0.1:3000/hook --secret whsec_...
 *
 * (http:// and 127.0.0.1 need ELIG_ALLOW_PRIVATE_WEBHOOKS=1 on the service: local development only.) During
 * a secret roll, list both secrets: WEBHOOK_SECRET=whsec_old,whsec_new. In your own project import from
 * '@eligibility/client' instead of the repository path below.
 */
import { createServer } from 'node:http';
import { verifyWebhook } from '../packages/client/src/index.ts';

const secrets = (process.env.WEBHOOK_SECRET ?? '').split(',').filter(Boolean);
if (!secrets.length) {
  console.error('Set WEBHOOK_SECRET to the signing secret shown in the portal (Settings > API > Webhooks).');
  process.exit(2);
}
// In production: a table of event ids kept at least 7 days (retries span about three days).
const processed = new Set<string>();

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', async () => {
    // The exact bytes as received: verify before parsing (a re-serialized body would not verify).
    const rawBody = Buffer.concat(chunks);
    const verified = req.method === 'POST' ? await verifyWebhook(rawBody, req.headers, secrets) : undefined;
    if (!verified?.ok) {
      console.log(`rejected: ${verified?.reason ?? 'not a POST'}`);
      res.writeHead(401).end();
      return;
    }
    if (verified.eventId && processed.has(verified.eventId)) {
      console.log(`duplicate ${verified.eventId}: already processed`);
      res.writeHead(200).end();
      return;
    }
    if (verified.eventId) processed.add(verified.eventId);
    // Acknowledge within seconds; hand real work to a queue. Print ids and status only, never patient data.
    const event = JSON.parse(rawBody.toString('utf8')) as { id?: string; status?: string };
    const what =
      verified.eventType === 'eligibility.completed' ? `check ${event.id} ${event.status}` : 'event';
    console.log(`verified ${verified.eventType} ${verified.eventId}: ${what}`);
    res.writeHead(200).end();
  });
});
server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  console.log(`listening on http://127.0.0.1:${port}/hook`);
});
