/**
 * The Batches pages: the upload form with the organization's batches, the review of a file with malformed
 * rows (shown by file line before anything is sent), and one batch's live progress with its items.
 */
import type { BatchItem, BatchSummary } from '../../contract/batch.ts';
import { MAX_BATCH_CHECKS } from '../../contract/batch.ts';
import type { PortalSession } from '../../tenancy/sessions.ts';
import { statusBadge, timestamp } from '../format.ts';
import { html, type SafeHtml } from '../html.ts';
import { csrfField, messagePage, page } from '../layout.ts';

export const BATCHES = '/portal/batches';
/** How often a batch in progress reloads its page (a meta refresh: no script needed). */
export const BATCH_REFRESH_SECONDS = 2;

const VERDICT_LABELS = {
  ACTIVE: 'Active',
  INACTIVE: 'Inactive',
  UNDETERMINED: 'Undetermined',
  FAILED: 'Failed',
} as const;

const n = (x: number) => x.toLocaleString('en-US');

function verdictBadge(item: BatchItem): SafeHtml {
  if (!item.verdict) return statusBadge(item.status);
  return html`<span class="badge badge-${item.verdict.toLowerCase()}">${VERDICT_LABELS[item.verdict]}</span>`;
}

function finished(b: BatchSummary): number {
  return b.counts.total - b.counts.IN_PROGRESS;
}

function uploadForm(s: PortalSession, submission: string): SafeHtml {
  return html`<form method="post" action="${BATCHES}" enctype="multipart/form-data" class="panel">
  ${csrfField(s.csrfToken)}
  <input type="hidden" name="submission" value="${submission}">
  <h2>Check a schedule</h2>
  <p>Upload a CSV with one check per row (the columns of
  <a href="${BATCHES}/template.csv" download>the template</a>, as for <code>elig batch submit</code>), up to
  ${n(MAX_BATCH_CHECKS)} rows. Rows with a problem are listed by line before anything is sent.</p>
  <div class="field">
    <label for="f-file">Schedule file (CSV)</label>
    <input id="f-file" name="file" type="file" accept=".csv,text/csv" required>
  </div>
  <div class="field">
    <label for="f-name">Batch name <span class="muted">(optional)</span></label>
    <p class="hint" id="f-name-hint">Default: the file's name.</p>
    <input id="f-name" name="name" type="text" maxlength="200" autocomplete="off" aria-describedby="f-name-hint">
  </div>
  <button type="submit">Upload and check</button>
</form>`;
}

function batchRows(batches: BatchSummary[]): SafeHtml {
  if (!batches.length) return html`<p>No batches yet.</p>`;
  return html`<div class="table-wrap" role="region" aria-label="Batches" tabindex="0"><table class="batches">
<thead><tr><th scope="col">Submitted</th><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Finished</th><th scope="col">Active</th><th scope="col">Inactive</th><th scope="col">Undetermined</th><th scope="col">Failed</th><th scope="col">Rejected</th></tr></thead>
<tbody>${batches.map(
    (b) => html`<tr>
<th scope="row"><a href="${BATCHES}/${b.id}">${timestamp(b.createdAt)}<span class="sr-only"> (open batch)</span></a></th>
<td>${b.name ?? ''}</td>
<td>${statusBadge(b.status)}</td>
<td>${n(finished(b))} / ${n(b.counts.total)}</td>
<td>${n(b.verdicts.ACTIVE)}</td><td>${n(b.verdicts.INACTIVE)}</td><td>${n(b.verdicts.UNDETERMINED)}</td>
<td>${n(b.verdicts.FAILED)}</td><td>${n(b.counts.rejected)}</td>
</tr>`,
  )}</tbody></table></div>`;
}

export function batchesPage(
  s: PortalSession,
  list: { batches: BatchSummary[]; next: string | null },
  paged: boolean,
  submission: string,
): SafeHtml {
  return page({
    title: 'Batches',
    session: s,
    current: 'batches',
    body: html`<h1>Batches</h1>
<p>Check a whole schedule at once: every row becomes an ordinary check (its own page, webhook and audit),
run in the background after the checks someone is waiting for.</p>
${uploadForm(s, submission)}
<h2>Your organization's batches</h2>
${batchRows(list.batches)}
<nav aria-label="Pages" class="pager">${paged ? html`<a href="${BATCHES}">Newest</a>` : ''}${
      list.next ? html`<a href="${BATCHES}?before=${list.next}">Older batches</a>` : ''
    }</nav>`,
  });
}

export interface Review {
  fileName: string;
  name: string;
  /** The header and the readable rows of the file, as uploaded: sent again when the user sends the valid ones. */
  csv: string;
  submission: string;
  valid: number;
  /** The first problems by line (at most MAX_SCHEDULE_PROBLEMS of src/batches/csv.ts). */
  problems: { line: number; message: string }[];
  /** Every problem of the file, shown or not. */
  problemCount: number;
}

/** A file with malformed rows: each by line and reason, and (when any row is valid) a button to send the rest. */
export function reviewPage(s: PortalSession, r: Review): SafeHtml {
  return page({
    title: 'Review the schedule',
    session: s,
    current: 'batches',
    body: html`<p><a href="${BATCHES}">← Batches</a></p>
<h1>Review the schedule</h1>
<div class="error-summary" role="alert" tabindex="-1">
  <h2>${n(r.problemCount)} ${r.problemCount === 1 ? 'row has a problem' : 'rows have problems'}${r.fileName ? html` in <span class="mono">${r.fileName}</span>` : ''}</h2>
  <p>Nothing has been sent yet. ${
    r.valid
      ? `${n(r.valid)} ${r.valid === 1 ? 'row is' : 'rows are'} ready to check.`
      : 'No row can be checked: correct the file and upload it again.'
  }</p>
</div>
<div class="table-wrap" role="region" aria-label="Rows with problems" tabindex="0"><table class="problems">
<thead><tr><th scope="col">Line</th><th scope="col">Problem</th></tr></thead>
<tbody>${r.problems.map((p) => html`<tr><th scope="row">${p.line}</th><td>${p.message}</td></tr>`)}</tbody>
</table></div>
${r.problemCount > r.problems.length ? html`<p class="muted">And ${n(r.problemCount - r.problems.length)} more.</p>` : ''}
${
  r.valid
    ? html`<form method="post" action="${BATCHES}" enctype="multipart/form-data" class="actions">
  ${csrfField(s.csrfToken)}
  <input type="hidden" name="submission" value="${r.submission}">
  <input type="hidden" name="name" value="${r.name}">
  <input type="hidden" name="file.filename" value="${r.fileName}">
  <input type="hidden" name="csv" value="${r.csv}">
  <input type="hidden" name="send" value="valid">
  <button type="submit">Send the ${n(r.valid)} valid ${r.valid === 1 ? 'row' : 'rows'}</button>
  <a href="${BATCHES}">Upload a corrected file instead</a>
</form>`
    : html`<p><a class="button" href="${BATCHES}">Upload a corrected file</a></p>`
}`,
  });
}

const ITEM_FILTERS: [BatchItem['status'] | '', string][] = [
  ['', 'All'],
  ['IN_PROGRESS', 'In progress'],
  ['COMPLETED', 'Completed'],
  ['FAILED', 'Failed'],
];

export function batchPage(
  s: PortalSession,
  b: BatchSummary & { items: BatchItem[]; next: string | null },
  view: { status: BatchItem['status'] | ''; paged: boolean },
  notice: string | undefined,
): SafeHtml {
  const inProgress = b.status === 'IN_PROGRESS';
  const done = finished(b);
  const percent = Math.floor(b.progress * 100);
  const here = (status: string, after?: string) => {
    const q = new URLSearchParams();
    if (status) q.set('status', status);
    if (after) q.set('after', after);
    const text = q.toString();
    return `${BATCHES}/${b.id}${text ? `?${text}` : ''}`;
  };
  return page({
    title: b.name ? `Batch ${b.name}` : 'Batch',
    session: s,
    current: 'batches',
    notice,
    refreshSeconds: inProgress ? BATCH_REFRESH_SECONDS : undefined,
    body: html`<p><a href="${BATCHES}">← Batches</a></p>
<div class="heading-row"><h1>${b.name ?? 'Batch'}</h1>
<a class="button" href="${BATCHES}/${b.id}/results.csv" download>Download results CSV</a></div>
<section class="panel" aria-labelledby="progress-h">
<h2 id="progress-h">Progress: ${statusBadge(b.status)}</h2>
<p><progress value="${done}" max="${Math.max(b.counts.total, 1)}" aria-describedby="progress-text"></progress>
<span id="progress-text" data-batch-progress>${n(done)} of ${n(b.counts.total)} checks finished (${percent}%)</span></p>
${inProgress ? html`<p class="muted">This page reloads every ${BATCH_REFRESH_SECONDS} seconds until the batch completes. The results CSV has a row for every check; those still in progress say so.</p>` : ''}
<dl class="facts">
<dt>Submitted</dt><dd>${timestamp(b.createdAt)}</dd>
<dt>Completed</dt><dd>${timestamp(b.completedAt)}</dd>
<dt>Batch id</dt><dd><code>${b.id}</code></dd>
</dl>
<div class="table-wrap"><table class="counts" aria-label="Checks by status and verdict">
<thead><tr><th scope="col">In progress</th><th scope="col">Completed</th><th scope="col">Failed</th><th scope="col">Rejected at upload</th><th scope="col">Active</th><th scope="col">Inactive</th><th scope="col">Undetermined</th></tr></thead>
<tbody><tr>
<td data-count="IN_PROGRESS">${n(b.counts.IN_PROGRESS)}</td><td data-count="COMPLETED">${n(b.counts.COMPLETED)}</td>
<td data-count="FAILED">${n(b.counts.FAILED)}</td><td data-count="rejected">${n(b.counts.rejected)}</td>
<td data-verdict="ACTIVE">${n(b.verdicts.ACTIVE)}</td><td data-verdict="INACTIVE">${n(b.verdicts.INACTIVE)}</td>
<td data-verdict="UNDETERMINED">${n(b.verdicts.UNDETERMINED)}</td>
</tr></tbody></table></div>
</section>
<h2>Checks</h2>
<nav aria-label="Filter checks" class="pager">${ITEM_FILTERS.map(([status, label]) =>
      status === view.status
        ? html`<strong aria-current="true">${label}</strong> `
        : html`<a href="${here(status)}">${label}</a> `,
    )}</nav>
${
  b.items.length
    ? html`<div class="table-wrap" role="region" aria-label="Checks of the batch" tabindex="0"><table class="checks">
<thead><tr><th scope="col">Item</th><th scope="col">Check</th><th scope="col">Status</th><th scope="col">Verdict</th></tr></thead>
<tbody>${b.items.map(
        (it) => html`<tr><th scope="row">${it.index}</th>
<td><a class="mono" href="/portal/checks/${it.id}">${it.id}</a></td>
<td>${statusBadge(it.status)}</td><td>${verdictBadge(it)}</td></tr>`,
      )}</tbody></table></div>`
    : html`<p>No check of this batch ${view.status ? 'has this status' : 'to show'}.</p>`
}
<nav aria-label="Pages" class="pager">${view.paged ? html`<a href="${here(view.status)}">First</a>` : ''}${
      b.next ? html`<a href="${here(view.status, b.next)}">More checks</a>` : ''
    }</nav>`,
  });
}

/** An upload that cannot go ahead (no file, too many rows, the limit, a used form): why, and the way back. */
export function batchProblemPage(s: PortalSession | undefined, title: string, message: string): SafeHtml {
  return messagePage({ title, message, session: s, action: { href: BATCHES, label: 'Back to Batches' } });
}
