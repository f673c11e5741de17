/**
 * Monitors in the portal: the organization's list (patients shown as the checks list shows them: name, date
 * of birth, member id cut to its last four), one monitor with its latest runs, and the "Re-check this
 * patient" form of a check page. Every button is a same-origin POST form with the CSRF field.
 */
import type { Monitor, MonitorDetail } from '../../contract/monitor.ts';
import type { PortalSession } from '../../tenancy/sessions.ts';
import { statusBadge, timestamp, x12Date } from '../format.ts';
import { html, type SafeHtml } from '../html.ts';
import { csrfField, errorSummary, page, textField } from '../layout.ts';

export const MONITORS_PATH = '/portal/monitors';

const STATUS_LABELS: Record<Monitor['status'], string> = {
  active: 'Active',
  paused: 'Paused',
  completed: 'Completed',
};

function monitorStatus(m: Monitor): SafeHtml {
  const cls = m.status === 'active' ? 'active' : m.status === 'paused' ? 'pending' : 'unknown';
  return html`<span class="badge badge-${cls}">${STATUS_LABELS[m.status]}</span>`;
}

function patient(m: Monitor): string {
  return [m.subscriber.lastName, m.subscriber.firstName].filter(Boolean).join(', ');
}

export function scheduleText(m: Pick<Monitor, 'every' | 'dates'>): SafeHtml {
  if (m.every !== null) return html`Every ${m.every === 1 ? 'day' : `${m.every} days`}`;
  const dates = m.dates ?? [];
  return html`Before ${dates.length === 1 ? 'the visit on' : `${dates.length} visits:`} ${dates
    .map((d) => x12Date(d))
    .join(', ')}`;
}

/** Pause or resume, and delete: one small form each. */
function actions(s: PortalSession, m: Monitor, returnTo: 'list' | 'detail'): SafeHtml {
  const base = `${MONITORS_PATH}/${m.id}`;
  const back = html`<input type="hidden" name="return" value="${returnTo}">`;
  const toggle =
    m.status === 'completed'
      ? ''
      : html`<form method="post" action="${base}/${m.status === 'active' ? 'pause' : 'resume'}" class="inline">${csrfField(s.csrfToken)}${back}<button type="submit" class="secondary">${
          m.status === 'active' ? 'Pause' : 'Resume'
        }<span class="sr-only"> monitor of ${patient(m)}</span></button></form>`;
  return html`${toggle} <form method="post" action="${base}/delete" class="inline">${csrfField(s.csrfToken)}<button type="submit" class="danger-text">Delete<span class="sr-only"> monitor of ${patient(m)}</span></button></form>`;
}

export function monitorListPage(
  s: PortalSession,
  result: { monitors: Monitor[]; next: string | null },
  paged: boolean,
  notice: string | undefined,
): SafeHtml {
  const rows = result.monitors;
  return page({
    title: 'Monitors',
    session: s,
    current: 'monitors',
    notice,
    body: html`<h1>Monitors</h1>
<p>A monitor checks a patient again on a schedule: every few days, or the day before each visit. Each run is an ordinary check, listed under <a href="/portal/checks">Checks</a>. Start one from a check's page.</p>
${
  rows.length
    ? html`<div class="table-wrap" role="region" aria-label="Monitors" tabindex="0"><table class="checks">
<thead><tr><th scope="col">Patient</th><th scope="col">Date of birth</th><th scope="col">Member id</th><th scope="col">Payer</th><th scope="col">Schedule</th><th scope="col">Status</th><th scope="col">Next run</th><th scope="col">Runs</th><th scope="col">Actions</th></tr></thead>
<tbody>${rows.map(
        (m) => html`<tr>
<th scope="row"><a href="${MONITORS_PATH}/${m.id}">${patient(m)}<span class="sr-only"> (open monitor)</span></a></th>
<td>${x12Date(m.subscriber.dateOfBirth)}</td>
<td><span class="mono">••••${m.subscriber.memberId.slice(-4)}</span></td>
<td>${m.tradingPartnerServiceId}</td>
<td>${scheduleText(m)}</td>
<td>${monitorStatus(m)}</td>
<td>${m.status === 'completed' ? '' : timestamp(m.nextRunAt)}</td>
<td>${String(m.runCount)}</td>
<td>${actions(s, m, 'list')}</td>
</tr>`,
      )}</tbody></table></div>`
    : html`<p>No monitors yet. Open a check and use <strong>Re-check this patient</strong>.</p>`
}
<nav aria-label="Pages" class="pager">${paged ? html`<a href="${MONITORS_PATH}">Newest</a>` : ''}${
      result.next ? html`<a href="${MONITORS_PATH}?before=${result.next}">Older monitors</a>` : ''
    }</nav>`,
  });
}

export function monitorDetailPage(s: PortalSession, m: MonitorDetail, notice: string | undefined): SafeHtml {
  return page({
    title: 'Monitor',
    session: s,
    current: 'monitors',
    notice,
    body: html`<p><a href="${MONITORS_PATH}">← All monitors</a></p>
<h1>Monitor ${monitorStatus(m)}</h1>
<dl class="facts">
<dt>Patient</dt><dd>${patient(m)}</dd>
<dt>Date of birth</dt><dd>${x12Date(m.subscriber.dateOfBirth)}</dd>
<dt>Member id</dt><dd>${m.subscriber.memberId}</dd>
<dt>Payer</dt><dd>${m.tradingPartnerServiceId}</dd>
<dt>Schedule</dt><dd>${scheduleText(m)}</dd>
<dt>Next run</dt><dd>${m.status === 'completed' ? 'None: every visit has been checked' : timestamp(m.nextRunAt)}</dd>
<dt>Created</dt><dd>${timestamp(m.createdAt)}</dd>
</dl>
<p>${actions(s, m, 'detail')}</p>
<section aria-labelledby="runs"><h2 id="runs">Latest runs</h2>${
      m.runs.length
        ? html`<div class="table-wrap" role="region" aria-labelledby="runs" tabindex="0"><table class="checks">
<thead><tr><th scope="col">Run</th><th scope="col">Date of service</th><th scope="col">Result</th></tr></thead>
<tbody>${m.runs.map(
            (
              r,
            ) => html`<tr><th scope="row"><a href="/portal/checks/${r.checkId}">${timestamp(r.createdAt)}<span class="sr-only"> (open check)</span></a></th>
<td>${r.dateOfService ? x12Date(r.dateOfService) : 'Day of the run'}</td>
<td>${r.verdict ? html`<span class="badge badge-${r.verdict.toLowerCase()}">${r.verdict}</span>` : statusBadge(r.status)}</td></tr>`,
          )}</tbody></table></div>`
        : html`<p>No run yet.</p>`
    }</section>`,
  });
}

export interface MonitorFormValues {
  schedule: 'every' | 'dates';
  every: string;
  dates: string;
}

export const EMPTY_MONITOR_FORM: MonitorFormValues = { schedule: 'dates', every: '30', dates: '' };

/** "Re-check this patient": before each visit (dates) or every N days, for the patient of a check. */
export function monitorForm(
  s: PortalSession,
  checkId: string,
  values: MonitorFormValues,
  errors: { field: string; message: string }[],
): SafeHtml {
  const error = (field: string) => errors.find((e) => e.field === field)?.message;
  const radio = (value: MonitorFormValues['schedule'], label: string) =>
    html`<label><input type="radio" name="schedule" value="${value}"${values.schedule === value ? html` checked` : ''}> ${label}</label>`;
  return html`<section aria-labelledby="monitor"><h2 id="monitor">Re-check this patient</h2>
<p>Check this patient with the same payer again on a schedule: the day before each visit, or every few days. Each run is a new check.</p>
${errorSummary(errors)}
<form method="post" action="${MONITORS_PATH}" novalidate>
  ${csrfField(s.csrfToken)}
  <input type="hidden" name="check" value="${checkId}">
  <fieldset><legend>When</legend>
  ${radio('dates', 'Before each visit')}
  ${textField({ name: 'dates', label: 'Visit dates', value: values.dates, required: false, inputmode: 'numeric', hint: "YYYY-MM-DD or YYYYMMDD, separated by commas or spaces; each is checked from 00:00 the day before, in the organization's time zone (UTC if none is set).", error: error('dates'), autocomplete: 'off' })}
  ${radio('every', 'Every N days')}
  ${textField({ name: 'every', label: 'Days between checks', value: values.every, required: false, inputmode: 'numeric', hint: '1 to 365; the first check runs now.', error: error('every'), autocomplete: 'off' })}
  </fieldset>
  <button type="submit">Start monitoring</button>
</form></section>`;
}

/** The form again on a page of its own, when creating a monitor was refused (its problems on their fields). */
export function monitorFormPage(
  s: PortalSession,
  checkId: string,
  values: MonitorFormValues,
  errors: { field: string; message: string }[],
): SafeHtml {
  return page({
    title: 'Re-check this patient',
    session: s,
    current: 'checks',
    body: html`<p><a href="/portal/checks/${checkId}">← Back to the check</a></p>${monitorForm(s, checkId, values, errors)}`,
  });
}
