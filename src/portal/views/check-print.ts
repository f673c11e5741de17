/**
 * A check for the patient's chart: a clean printable page (no navigation, print CSS, one or two sheets) and
 * the same content as a PDF. Both read the summary of src/checks/summary.ts, as the CLI does.
 */
import type { CollectSummary } from '../../checks/collect-summary.ts';
import type { CheckDetail } from '../../checks/list.ts';
import { type CheckSummaryText, summarizeCheck } from '../../checks/summary.ts';
import type { VerdictStatus } from '../../contract/check-response.ts';
import { html, type SafeHtml } from '../html.ts';
import { documentHead } from '../layout.ts';
import { PdfDocument, type Rgb } from '../pdf.ts';

export interface PrintContext {
  organizationName: string;
  /** When the page or file was made (ISO). */
  printedAt: string;
}

/** ISO → `2026-05-01 14:03 UTC` (a printed page has no hover for the exact time). */
function utc(iso: string | null): string {
  return iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : '-';
}

function summaryOf(c: CheckDetail): CheckSummaryText {
  if (c.result) return summarizeCheck(c.result, c.request);
  return summarizeCheck({ id: c.id, status: c.status }, c.request);
}

function checkFacts(c: CheckDetail): [string, string][] {
  return [
    ['Check id', c.id],
    ['Submitted', utc(c.createdAt)],
    ['Finished', c.completedAt ? utc(c.completedAt) : 'not yet: the payer has not answered'],
  ];
}

const IN_PROGRESS_TEXT = 'In progress: the payer has not answered yet';

function pairsHtml(pairs: [string, string][]): SafeHtml {
  return html`<dl class="facts">${pairs.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>`;
}

/** The estimates of the check's charges: each with its steps and assumptions, then the total. */
export function collectHtml(c: CollectSummary): SafeHtml {
  return html`<section aria-labelledby="p-collect"><h2 id="p-collect">Collect at desk</h2>${c.lines.map(
    (l) =>
      html`<div class="estimate"><p><strong>${l.charge}</strong></p><p>${l.outcome}${
        l.confidence ? html` <span class="muted">(${l.confidence})</span>` : ''
      }</p>${l.steps.length ? html`<ul class="steps">${l.steps.map((st) => html`<li>${st}</li>`)}</ul>` : ''}${
        l.assumptions.length
          ? html`<ul class="assumptions">${l.assumptions.map((a) => html`<li>Assumed: ${a}</li>`)}</ul>`
          : ''
      }</div>`,
  )}<p><strong>${c.total}</strong></p></section>`;
}

export function checkPrintPage(c: CheckDetail, ctx: PrintContext): SafeHtml {
  const s = summaryOf(c);
  const verdict = s.verdict;
  return html`${documentHead({ title: `Eligibility check · ${ctx.organizationName}`, stylesheet: 'print.css' })}
<body class="sheet">
<nav class="no-print actions" aria-label="Print actions"><a href="/portal/checks/${c.id}">← Back to the check</a>
<button type="button" data-print hidden>Print</button>
<a href="/portal/checks/${c.id}/print.pdf" download>Download PDF</a></nav>
<header><p class="org">${ctx.organizationName}</p><h1>Eligibility check</h1></header>
<main>
${
  verdict
    ? html`<p class="verdict verdict-${verdict.status.toLowerCase()}"><strong>${verdict.status}</strong> ${verdict.summary}</p>`
    : html`<p class="verdict verdict-pending">${IN_PROGRESS_TEXT}</p>`
}
<div class="columns">
<section aria-labelledby="p-patient"><h2 id="p-patient">Patient</h2>${pairsHtml(s.patient)}</section>
<section aria-labelledby="p-check"><h2 id="p-check">Check</h2>${pairsHtml(checkFacts(c))}</section>
</div>
${s.plan.length ? html`<section aria-labelledby="p-plan"><h2 id="p-plan">Plan</h2>${pairsHtml(s.plan)}</section>` : ''}
${
  s.otherCoverage
    ? html`<section aria-labelledby="p-other"><h2 id="p-other">Other coverage</h2><table>
<thead><tr>${s.otherCoverage.columns.map((col) => html`<th scope="col">${col}</th>`)}</tr></thead>
<tbody>${s.otherCoverage.rows.map(
        ([first, ...rest]) =>
          html`<tr><th scope="row">${first}</th>${rest.map((v) => html`<td>${v}</td>`)}</tr>`,
      )}</tbody></table></section>`
    : ''
}
${
  s.benefits
    ? html`<section aria-labelledby="p-benefits"><h2 id="p-benefits">Benefits</h2><table>
<thead><tr>${s.benefits.columns.map((col) => html`<th scope="col">${col}</th>`)}</tr></thead>
<tbody>${s.benefits.rows.map(
        ([first, ...rest]) =>
          html`<tr><th scope="row">${first}</th>${rest.map((v) => html`<td>${v}</td>`)}</tr>`,
      )}</tbody></table></section>`
    : ''
}
${s.collect ? collectHtml(s.collect) : ''}
${
  s.errors.length
    ? html`<section aria-labelledby="p-errors"><h2 id="p-errors">Errors and what to do</h2>${s.errors.map(
        (e) =>
          html`<div class="error"><p><strong>${e.code}</strong> ${e.description}${
            e.location ? html` <span class="muted">(${e.location})</span>` : ''
          }</p>${e.followupAction ? html`<p>Next step: <strong>${e.followupAction}</strong></p>` : ''}${
            e.resolutions.length ? html`<ul>${e.resolutions.map((r) => html`<li>${r}</li>`)}</ul>` : ''
          }</div>`,
      )}</section>`
    : ''
}
${
  s.warnings.length
    ? html`<section aria-labelledby="p-warnings"><h2 id="p-warnings">Warnings</h2><ul>${s.warnings.map((w) => html`<li>${w}</li>`)}</ul></section>`
    : ''
}
</main>
<footer><p>Printed ${utc(ctx.printedAt)} from the eligibility portal. The payer's answer as of the check; benefits can change.</p></footer>
</body>
</html>`;
}

const BANNER: Record<VerdictStatus | 'PENDING', { background: Rgb; colour: Rgb }> = {
  ACTIVE: { background: [0.86, 0.95, 0.88], colour: [0.05, 0.4, 0.15] },
  INACTIVE: { background: [0.98, 0.87, 0.87], colour: [0.6, 0.08, 0.08] },
  FAILED: { background: [0.98, 0.87, 0.87], colour: [0.6, 0.08, 0.08] },
  UNDETERMINED: { background: [1, 0.94, 0.8], colour: [0.5, 0.3, 0] },
  PENDING: { background: [1, 0.94, 0.8], colour: [0.5, 0.3, 0] },
};

export function checkPdf(c: CheckDetail, ctx: PrintContext): Buffer {
  const s = summaryOf(c);
  const doc = new PdfDocument(
    `${ctx.organizationName} · eligibility check ${c.id} · printed ${utc(ctx.printedAt)}`,
  );
  doc.text(ctx.organizationName, { size: 9, colour: [0.35, 0.35, 0.35] });
  doc.text('Eligibility check', { size: 18, bold: true });
  doc.gap(8);
  const look = BANNER[s.verdict?.status ?? 'PENDING'];
  doc.banner(
    s.verdict ? `${s.verdict.status} – ${s.verdict.summary}` : IN_PROGRESS_TEXT,
    look.background,
    look.colour,
  );
  const section = (title: string) => {
    doc.gap(10);
    doc.text(title, { size: 12, bold: true });
    doc.gap(2);
  };
  section('Patient');
  doc.facts([...s.patient, ...checkFacts(c)]);
  if (s.plan.length) {
    section('Plan');
    doc.facts(s.plan);
  }
  if (s.otherCoverage) {
    section('Other coverage');
    doc.table(s.otherCoverage.columns, s.otherCoverage.rows);
  }
  if (s.benefits) {
    section('Benefits');
    doc.table(s.benefits.columns, s.benefits.rows);
  }
  if (s.collect) {
    section('Collect at desk');
    for (const l of s.collect.lines) {
      doc.text(l.charge, { bold: true });
      doc.text(`${l.outcome}${l.confidence ? ` (${l.confidence})` : ''}`, { indent: 12 });
      for (const step of l.steps) doc.text(step, { indent: 24, size: 9 });
      for (const a of l.assumptions) doc.text(`Assumed: ${a}`, { indent: 24, size: 9 });
      doc.gap(3);
    }
    doc.text(s.collect.total, { bold: true });
  }
  if (s.errors.length) {
    section('Errors and what to do');
    for (const e of s.errors) {
      doc.text(`${e.code}  ${e.description}${e.location ? ` (${e.location})` : ''}`, { bold: true });
      if (e.followupAction) doc.text(`Next step: ${e.followupAction}`, { indent: 12 });
      for (const r of e.resolutions) doc.text(`• ${r}`, { indent: 12, size: 9 });
      doc.gap(4);
    }
  }
  if (s.warnings.length) {
    section('Warnings');
    for (const w of s.warnings) doc.text(`• ${w}`, { size: 9 });
  }
  return doc.toBuffer();
}
