/**
 * What went wrong with a check, first and in words: each error with what to check and change
 * (`possibleResolutions`) and the payer's follow-up, and the way out: "Fix and resubmit", the run-a-check
 * form filled in from this check with the field the error points at highlighted. Dependents' errors are
 * shown the same way, with the dependent they belong to.
 */
import { personName } from '../../checks/summary.ts';
import type { EligibilityCheckError, ResponseDependent } from '../../contract/check-response.ts';
import { x12Date } from '../format.ts';
import { html, type SafeHtml } from '../html.ts';

function errorCard(e: EligibilityCheckError, heading: 'h3' | 'h4'): SafeHtml {
  const title = html`${e.description} <span class="muted">(code <code>${e.code}</code>)</span>`;
  return html`<div class="error-card">
${heading === 'h3' ? html`<h3>${title}</h3>` : html`<h4>${title}</h4>`}
${e.possibleResolutions ? html`<p class="resolutions pre-line">${e.possibleResolutions}</p>` : ''}
${e.followupAction ? html`<p><strong>Follow-up:</strong> ${e.followupAction}</p>` : ''}
${e.location ? html`<p class="muted">Reported in ${e.location}.</p>` : ''}
</div>`;
}

/** The failed check's errors, leading its page, with "Fix and resubmit" when the request is stored. */
export function errorsSection(errors: EligibilityCheckError[], resubmitHref: string | undefined): SafeHtml {
  if (!errors.length && !resubmitHref) return html``;
  return html`<section class="failure" aria-labelledby="errors"><h2 id="errors">What went wrong</h2>
${errors.map((e) => errorCard(e, 'h3'))}
${
  resubmitHref
    ? html`<p><a class="button" href="${resubmitHref}">Fix and resubmit</a> <span class="muted">Opens the run-a-check form filled in from this check.</span></p>`
    : ''
}
</section>`;
}

export function dependentsSection(list: ResponseDependent[]): SafeHtml {
  return html`<section aria-labelledby="dependents"><h2 id="dependents">Dependents</h2><ul class="dependents">${list.map(
    (d) =>
      html`<li>${personName(d)}${d.dateOfBirth ? html` <span class="muted">born ${x12Date(d.dateOfBirth)}</span>` : ''}${
        d.aaaErrors?.length ? html`${d.aaaErrors.map((e) => errorCard(e, 'h4'))}` : ''
      }</li>`,
  )}</ul></section>`;
}
