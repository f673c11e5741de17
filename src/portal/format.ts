/** How values read on portal pages: dollars, percentages, dates, yes/no, and "not stated" for gaps. */
import { html, type SafeHtml } from './html.ts';

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
const wholeUsd = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  maximumFractionDigits: 0,
});

export function notStated(): SafeHtml {
  return html`<span class="muted" aria-hidden="true">—</span><span class="sr-only">not stated</span>`;
}

export function money(n: number | null | undefined): SafeHtml | string {
  if (typeof n !== 'number' || !Number.isFinite(n)) return notStated();
  // Whole dollars read faster without cents ($1,500); cents stay when there are some ($12.50).
  return Number.isInteger(n) ? wholeUsd.format(n) : usd.format(n);
}

/** Coinsurance and scores are fractions (0.2); people read percentages (20%). */
export function percent(fraction: number | null | undefined): SafeHtml | string {
  if (typeof fraction !== 'number' || !Number.isFinite(fraction)) return notStated();
  return `${Number((fraction * 100).toFixed(1))}%`;
}

export function yesNo(b: boolean | null | undefined): SafeHtml | string {
  return b === true ? 'Yes' : b === false ? 'No' : notStated();
}

export function count(n: number | null | undefined): SafeHtml | string {
  return typeof n === 'number' && Number.isFinite(n) ? String(n) : notStated();
}

/** `20260101` → `2026-01-01`; `20260101-20261231` → `2026-01-01 to 2026-12-31`; other text as is. */
export function x12Date(text: string | null | undefined): SafeHtml | string {
  if (!text) return notStated();
  const one = (d: string) => (/^\d{8}$/.test(d) ? `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6)}` : d);
  const range = /^(\d{8})-(\d{8})$/.exec(text);
  return range ? `${one(range[1]!)} to ${one(range[2]!)}` : one(text);
}

/**
 * ISO timestamp → `2026-05-01 14:03:07 UTC` in a <time> element, UTC also on hover. portal.js rewrites the
 * text in the organization's time zone (the page's `data-time-zone`) or, when it has none, the browser's;
 * without the script the page reads in UTC, labelled as such.
 */
export function timestamp(iso: string | null | undefined): SafeHtml {
  if (!iso) return notStated();
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return html`${iso}`;
  const utc = `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
  return html`<time datetime="${d.toISOString()}" title="${utc}">${utc}</time>`;
}

export function milliseconds(ms: number | null | undefined): SafeHtml | string {
  return typeof ms === 'number' ? `${ms} ms` : notStated();
}

const STATUS_LABELS: Record<string, string> = {
  IN_PROGRESS: 'In progress',
  COMPLETED: 'Completed',
  FAILED: 'Failed',
};

export function statusBadge(status: string): SafeHtml {
  return html`<span class="badge badge-${status.toLowerCase().replace(/[^a-z_]/g, '')}">${
    STATUS_LABELS[status] ?? status
  }</span>`;
}
