/**
 * The Scorecard pages of the service's operators: per connection and per payer, the calls, latency, outcome
 * shares (AAA by code), where completed checks' service types came from, and the last success. Counts only.
 */
import type { PortalSession } from '../../tenancy/sessions.ts';
import type { ScorecardCard } from '../../workers/payer-scorecard.ts';
import type { PayerScorecard, ScorecardOverview } from '../../workers/payer-scorecard-read.ts';
import { milliseconds, percent, timestamp } from '../format.ts';
import { html, type SafeHtml } from '../html.ts';
import { page } from '../layout.ts';

export const SCORECARD_PATH = '/portal/operator/scorecard';

/** The windows offered, in hours. */
export const SCORECARD_WINDOWS = [
  { hours: 1, label: 'Last hour' },
  { hours: 24, label: 'Last day' },
  { hours: 168, label: 'Last 7 days' },
  { hours: 720, label: 'Last 30 days' },
] as const;

const HEAD = html`<th scope="col">Calls</th><th scope="col">p50</th><th scope="col">p95</th>
<th scope="col">Completed</th><th scope="col">AAA</th><th scope="col">Transient</th><th scope="col">Rejected</th>
<th scope="col">Payer rows</th><th scope="col">Plan fallback</th><th scope="col">Nothing</th><th scope="col">Last success</th>`;

function aaaCodes(card: ScorecardCard): SafeHtml | string {
  const codes = Object.entries(card.aaaCodes).sort((a, b) => b[1] - a[1]);
  if (codes.length === 0) return '';
  return html`<br><span class="muted">${codes.map(([code, n]) => `${code}×${n}`).join(', ')}</span>`;
}

function cells(card: ScorecardCard): SafeHtml {
  const sourced = card.sources['payer-rows'] + card.sources['plan-fallback'] + card.sources.none;
  const source = (share: number) => (sourced === 0 ? html`<span class="muted">—</span>` : percent(share));
  return html`<td>${card.calls}</td><td>${milliseconds(card.latencyMs.p50)}</td><td>${milliseconds(card.latencyMs.p95)}</td>
<td>${percent(card.outcomeShares.completed)}</td><td>${percent(card.outcomeShares.aaa)}${aaaCodes(card)}</td>
<td>${percent(card.outcomeShares.transient)}</td><td>${percent(card.outcomeShares.rejected + card.outcomeShares.error)}</td>
<td>${source(card.sourceShares['payer-rows'])}</td><td>${source(card.sourceShares['plan-fallback'])}</td><td>${source(card.sourceShares.none)}</td>
<td>${card.lastSuccessAt ? timestamp(card.lastSuccessAt) : html`<span class="muted">never</span>`}</td>`;
}

function table(label: string, first: string, rows: SafeHtml[]): SafeHtml {
  return html`<div class="table-wrap" role="region" aria-label="${label}" tabindex="0"><table>
<thead><tr><th scope="col">${first}</th>${HEAD}</tr></thead>
<tbody>${rows}</tbody></table></div>`;
}

function windowLinks(hours: number, base: string): SafeHtml {
  return html`<nav aria-label="Window" class="pager">${SCORECARD_WINDOWS.map((w) =>
    w.hours === hours
      ? html`<strong aria-current="true">${w.label}</strong> `
      : html`<a href="${base}?hours=${w.hours}">${w.label}</a> `,
  )}</nav>`;
}

const EXPLAINER = html`<p class="muted">Shares of calls: Completed (a 271 without AAA), AAA (a 271 with AAA; codes with
counts below), Transient (no answer: timeouts, gateway errors, refused credentials), Rejected (999/TA1, or an answer
that could not be read). Of completed checks: Payer rows (every product service type from the payer's rows for it),
Plan fallback (at least one from the plan-level 30 rows), Nothing (no rows at all). Counts only, across every organization.</p>`;

export function scorecardPage(s: PortalSession, o: ScorecardOverview, pageNumber: number): SafeHtml {
  const { hours } = o.window;
  const payers = o.payers;
  const more = payers.offset + payers.items.length < payers.total;
  return page({
    title: 'Scorecard',
    session: s,
    current: 'scorecard',
    body: html`<h1>Scorecard</h1>
${windowLinks(hours, SCORECARD_PATH)}
${EXPLAINER}
<section aria-labelledby="connections"><h2 id="connections">Connections</h2>
${
  o.connections.length === 0
    ? html`<p>No payer calls in this window.</p>`
    : table(
        'Connections',
        'Connection',
        o.connections.map((c) => html`<tr><th scope="row">${c.id}</th>${cells(c)}</tr>`),
      )
}</section>
<section aria-labelledby="payers"><h2 id="payers">Payers</h2>
<p>${payers.total} payer${payers.total === 1 ? '' : 's'} with calls, most calls first.</p>
${
  payers.items.length === 0
    ? ''
    : table(
        'Payers',
        'Payer',
        payers.items.map(
          (p) =>
            html`<tr><th scope="row"><a href="${SCORECARD_PATH}/payers/${encodeURIComponent(p.id)}?hours=${hours}">${p.id}</a></th>${cells(p)}</tr>`,
        ),
      )
}
<nav aria-label="Pages" class="pager">${
      pageNumber > 1
        ? html`<a href="${SCORECARD_PATH}?hours=${hours}&page=${pageNumber - 1}">Previous</a> `
        : ''
    }${more ? html`<a href="${SCORECARD_PATH}?hours=${hours}&page=${pageNumber + 1}">Next</a>` : ''}</nav>
</section>`,
  });
}

export function payerScorecardPage(s: PortalSession, o: PayerScorecard): SafeHtml {
  const { hours } = o.window;
  const base = `${SCORECARD_PATH}/payers/${encodeURIComponent(o.payer.id)}`;
  return page({
    title: `Scorecard: ${o.payer.id}`,
    session: s,
    current: 'scorecard',
    body: html`<p><a href="${SCORECARD_PATH}?hours=${hours}">Scorecard</a></p>
<h1>Payer ${o.payer.id}</h1>
${windowLinks(hours, base)}
${EXPLAINER}
${table('All connections', 'Payer', [html`<tr><th scope="row">All connections</th>${cells(o.payer)}</tr>`])}
<section aria-labelledby="by-connection"><h2 id="by-connection">By connection</h2>
${table(
  'By connection',
  'Connection',
  o.connections.map((c) => html`<tr><th scope="row">${c.id}</th>${cells(c)}</tr>`),
)}</section>`,
  });
}
