/**
 * Settings > Webhooks as a person reads it: where completed checks are sent, how they are signed, a test
 * button, and the delivery log (status, latency, attempts, next retry, resend).
 */
import { EVENT_TYPES } from '../../contract/webhook-events.ts';
import type { PortalSession } from '../../tenancy/sessions.ts';
import type { WebhookAttempt, WebhookEventSummary } from '../../webhooks/deliveries.ts';
import type { WebhookSettings } from '../../webhooks/settings.ts';
import { milliseconds, notStated, timestamp } from '../format.ts';
import { html, type SafeHtml } from '../html.ts';
import { copyable, csrfField, page, settingsPage, textField } from '../layout.ts';

export const WEBHOOKS = '/portal/settings/webhooks';

export interface WebhookPageState {
  urlInput?: string;
  urlError?: string;
  secretError?: string;
  testError?: string;
  /** Show the current secret in clear (after reveal, generate, type-in or roll). */
  reveal?: boolean;
  notice?: string;
  /** Cursor of the delivery log (older events). */
  before?: string;
}

function stateLabel(e: WebhookEventSummary): string {
  return (
    { pending: 'Pending', delivered: 'Delivered', failed: 'Failed', cancelled: 'Cancelled' }[e.state] ??
    e.state
  );
}

function eventName(e: WebhookEventSummary): SafeHtml {
  if (e.checkId)
    return html`Check <a href="/portal/checks/${e.checkId}"><code>${e.checkId.slice(0, 8)}…</code></a>`;
  return e.kind === 'test' ? html`Test event` : html`<code>${e.kind}</code>`;
}

function deliveryTable(s: PortalSession, events: WebhookEventSummary[]): SafeHtml {
  if (!events.length) return html`<p>No deliveries yet.</p>`;
  return html`<div class="table-wrap" role="region" aria-label="Delivery log" tabindex="0"><table>
<thead><tr><th scope="col">Event</th><th scope="col">Created</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last response</th><th scope="col">Latency</th><th scope="col">Next retry</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
<tbody>${events.map(
    (e) => html`<tr>
<th scope="row">${eventName(e)}</th>
<td>${timestamp(e.createdAt)}</td>
<td><span class="badge badge-${e.state}">${stateLabel(e)}</span></td>
<td>${e.attempts}</td>
<td>${e.lastStatus !== null ? `HTTP ${e.lastStatus}` : ''}${e.lastError ? html` <span class="muted">${e.lastError}</span>` : ''}${
      e.lastStatus === null && !e.lastError ? notStated() : ''
    }</td>
<td>${milliseconds(e.lastLatencyMs)}</td>
<td>${e.nextAttemptAt ? timestamp(e.nextAttemptAt) : notStated()}</td>
<td class="actions"><a href="${WEBHOOKS}/deliveries/${e.id}">Details<span class="sr-only"> of the event created ${e.createdAt}</span></a>
<form method="post" action="${WEBHOOKS}/deliveries/${e.id}/resend" class="inline">${csrfField(s.csrfToken)}<button type="submit" class="secondary small">Resend<span class="sr-only"> the event created ${e.createdAt}</span></button></form></td>
</tr>`,
  )}</tbody></table></div>`;
}

function secretSection(s: PortalSession, settings: WebhookSettings, st: WebhookPageState): SafeHtml {
  const typeIn = html`<form method="post" action="${WEBHOOKS}/secret" novalidate>
  ${csrfField(s.csrfToken)}<input type="hidden" name="action" value="set">
  ${textField({ name: 'secret', label: settings.secret ? 'Replace with your own secret' : 'Or type in your own secret', type: 'password', autocomplete: 'off', hint: '24 to 256 printable characters, no spaces.', error: st.secretError })}
  <button type="submit" class="secondary">Save this secret</button>
</form>`;
  if (!settings.secret) {
    return html`<p>No signing secret: deliveries carry no <code>X-Webhook-Signature</code> header. A secret
lets your receiver prove that a request came from this service.</p>
<form method="post" action="${WEBHOOKS}/secret" class="inline">${csrfField(s.csrfToken)}<input type="hidden" name="action" value="generate"><button type="submit">Generate a secret</button></form>
${typeIn}`;
  }
  return html`${
    st.reveal
      ? copyable('secret-value', settings.secret, 'Signing secret')
      : html`<p>Signing secret: <code>whsec_••••••••</code></p>
<form method="post" action="${WEBHOOKS}/secret/reveal" class="inline">${csrfField(s.csrfToken)}<button type="submit" class="secondary">Reveal secret</button></form>`
  }
${
  settings.previousSecretExpiresAt
    ? html`<p class="panel">The previous secret still signs every delivery in <code>X-Webhook-Signature-Previous</code>
until ${timestamp(settings.previousSecretExpiresAt)}.</p>`
    : ''
}
<h3>Roll the secret</h3>
<p>Rolling creates a new secret at once. For the next 24 hours each delivery carries two signatures:
<code>X-Webhook-Signature</code> made with the new secret and <code>X-Webhook-Signature-Previous</code> made with
the old one, so your receiver keeps verifying while you update it. After 24 hours only the new secret signs.</p>
<form method="post" action="${WEBHOOKS}/secret/roll" class="inline">${csrfField(s.csrfToken)}<button type="submit">Roll secret</button></form>
${typeIn}
<form method="post" action="${WEBHOOKS}/secret" class="inline">${csrfField(s.csrfToken)}<input type="hidden" name="action" value="remove"><button type="submit" class="link danger-text">Remove signing secret</button></form>`;
}

/** Which event types the endpoint receives (issue 17 section 4); each delivery names its type in a header. */
function eventTypesSection(s: PortalSession, settings: WebhookSettings): SafeHtml {
  return html`<section aria-labelledby="event-types"><h2 id="event-types">Events</h2>
<form method="post" action="${WEBHOOKS}/events">${csrfField(s.csrfToken)}
<fieldset><legend>Send these events to the URL (each delivery names its type in <code>X-Webhook-Event</code>)</legend>
${EVENT_TYPES.map(
  (t) =>
    html`<label><input type="checkbox" name="types" value="${t.name}"${
      settings.eventTypes.includes(t.name) ? ' checked' : ''
    }> <code>${t.name}</code>: ${t.description}</label>`,
)}
</fieldset>
<button type="submit" class="secondary">Save events</button></form>
</section>`;
}

export function webhooksPage(
  s: PortalSession,
  settings: WebhookSettings,
  events: WebhookEventSummary[],
  next: string | undefined,
  st: WebhookPageState,
): SafeHtml {
  return settingsPage(
    s,
    'webhooks',
    st.notice,
    html`<p>When a check finishes (completed or failed) the service sends one <code>POST</code> with the check's JSON to your
URL. Answer with <code>200</code>; other answers are retried with growing delays for about 3 days. Without a URL,
clients poll <code>GET /api/eligibility/{id}/status</code> instead.</p>

<section aria-labelledby="endpoint"><h2 id="endpoint">Endpoint</h2>
<form method="post" action="${WEBHOOKS}/url" novalidate>
  ${csrfField(s.csrfToken)}
  ${textField({ name: 'url', label: 'Webhook URL', type: 'url', value: st.urlInput ?? settings.url ?? '', hint: 'An https address your systems receive on, e.g. https://clinic.example/hooks/eligibility.', error: st.urlError, autocomplete: 'off' })}
  <button type="submit">Save URL</button>
</form>
${
  settings.url
    ? html`<form method="post" action="${WEBHOOKS}/url" class="inline">${csrfField(s.csrfToken)}<input type="hidden" name="url" value=""><button type="submit" class="link danger-text">Remove URL</button></form>`
    : ''
}
</section>

${eventTypesSection(s, settings)}

<section aria-labelledby="signing"><h2 id="signing">Signing secret</h2>
${secretSection(s, settings, st)}
<details><summary>How to verify a delivery</summary>
<ol><li>Read the <code>X-Webhook-Timestamp</code> header and the raw request body.</li>
<li>Compute the HMAC-SHA256 hex digest of <code>timestamp + "." + body</code> with the signing secret as the key.</li>
<li>Compare it with <code>X-Webhook-Signature</code> in constant time (during a roll, also accept
<code>X-Webhook-Signature-Previous</code>).</li>
<li>Reject timestamps more than about 5 minutes from now.</li></ol>
</details>
</section>

<section aria-labelledby="test"><h2 id="test">Test</h2>
${st.testError ? html`<p class="error" id="f-test-error">${st.testError}</p>` : ''}
<p>Sends a sample body marked <code>TEST_EVENT</code> (it belongs to no check) to the URL above, signed like a real
delivery, and shows the answer.</p>
<form method="post" action="${WEBHOOKS}/test">${csrfField(s.csrfToken)}<button type="submit"${
      settings.url ? '' : html` disabled aria-describedby="no-url"`
    }>Send test event</button>${settings.url ? '' : html` <span id="no-url" class="muted">Save a URL first.</span>`}</form>
</section>

<section aria-labelledby="log"><h2 id="log">Delivery log</h2>
${deliveryTable(s, events)}
${next ? html`<p><a href="${WEBHOOKS}?before=${next}#log">Older deliveries</a></p>` : ''}
${st.before ? html`<p><a href="${WEBHOOKS}#log">Newest deliveries</a></p>` : ''}
</section>`,
  );
}

export interface EventDetail {
  id: string;
  kind: string;
  checkId: string | null;
  state: string;
  url: string;
  createdAt: string;
  deliveredAt: string | null;
}

export function eventPage(
  s: PortalSession,
  event: EventDetail,
  attempts: WebhookAttempt[],
  notice: string | undefined,
): SafeHtml {
  const waiting = event.state === 'pending' && attempts.length === 0;
  return page({
    title: 'Delivery',
    session: s,
    current: 'webhooks',
    notice,
    refreshSeconds: waiting ? 2 : undefined,
    body: html`<p><a href="${WEBHOOKS}#log">← Webhooks</a></p>
<h1>${event.checkId ? 'Check delivery' : event.kind === 'test' ? 'Test event delivery' : 'Delivery'}</h1>
<dl class="facts">
<dt>Event id</dt><dd><code>${event.id}</code> (sent as <code>X-Webhook-Id</code>)</dd>
<dt>Type</dt><dd><code>${event.kind}</code> (sent as <code>X-Webhook-Event</code>)</dd>
${event.checkId ? html`<dt>Check</dt><dd><a href="/portal/checks/${event.checkId}"><code>${event.checkId}</code></a></dd>` : ''}
<dt>URL</dt><dd><code class="wrap">${event.url}</code></dd>
<dt>Status</dt><dd><span class="badge badge-${event.state}">${event.state}</span></dd>
<dt>Created</dt><dd>${timestamp(event.createdAt)}</dd>
<dt>Delivered</dt><dd>${timestamp(event.deliveredAt)}</dd>
</dl>
<h2>Attempts</h2>
${
  attempts.length
    ? html`<div class="table-wrap" role="region" aria-label="Attempts" tabindex="0"><table>
<thead><tr><th scope="col">#</th><th scope="col">Started</th><th scope="col">Outcome</th><th scope="col">Response</th><th scope="col">Response body (first 1 KB)</th><th scope="col">Latency</th><th scope="col">Error</th><th scope="col">Next retry</th></tr></thead>
<tbody>${attempts.map(
        (
          a,
        ) => html`<tr><th scope="row">${a.attemptNumber}</th><td>${timestamp(a.startedAt)}</td><td class="outcome">${a.outcome}</td>
<td>${a.responseStatus !== null ? `HTTP ${a.responseStatus}` : notStated()}</td>
<td>${a.responseSnippet ? html`<pre class="snippet">${a.responseSnippet}</pre>` : notStated()}</td><td>${milliseconds(a.latencyMs)}</td>
<td>${a.error ?? notStated()}</td><td>${timestamp(a.nextAttemptAt)}</td></tr>`,
      )}</tbody></table></div>`
    : html`<p>No attempt yet${waiting ? ': this page reloads every 2 seconds until there is one' : ''}.</p>`
}
<form method="post" action="${WEBHOOKS}/deliveries/${event.id}/resend">${csrfField(s.csrfToken)}<button type="submit" class="secondary">Resend</button></form>`,
  });
}
