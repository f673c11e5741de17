/**
 * `elig check --wait` for people: the verdict as a banner, the patient and plan, other coverage, the benefits table with
 * the seven service types, and each error with what to do (src/checks/summary.ts decides the words).
 * Colour only on a terminal that wants it; otherwise plain text (no ANSI codes).
 */
import type { CheckSummaryText, SummaryTable } from '../checks/summary.ts';
import type { VerdictStatus } from '../contract/check-response.ts';

const COLOURS: Record<VerdictStatus, string> = {
  ACTIVE: '\x1b[1;32m',
  INACTIVE: '\x1b[1;31m',
  UNDETERMINED: '\x1b[1;33m',
  FAILED: '\x1b[1;31m',
};
const RESET = '\x1b[0m';
const BOLD = '\x1b[1m';

/** Columns padded to their widest cell, separated by two spaces. */
export function textTable(t: SummaryTable, indent = '  '): string[] {
  const widths = t.columns.map((c, i) => Math.max(c.length, ...t.rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    `${indent}${cells.map((c, i) => c.padEnd(widths[i]!)).join('  ')}`.trimEnd();
  return [line(t.columns), line(widths.map((w) => '-'.repeat(w))), ...t.rows.map(line)];
}

function pairs(list: [string, string][]): string[] {
  const width = Math.max(...list.map(([k]) => k.length));
  return list.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`);
}

export function renderCheckSummary(s: CheckSummaryText, options: { colour: boolean }): string {
  const bold = (text: string) => (options.colour ? `${BOLD}${text}${RESET}` : text);
  const lines: string[] = [];
  if (s.verdict) {
    const banner = `${s.verdict.status}  ${s.verdict.summary}`;
    const rule = '='.repeat(Math.min(banner.length, 100));
    lines.push(rule, options.colour ? `${COLOURS[s.verdict.status]}${banner}${RESET}` : banner, rule);
  }
  if (s.patient.length) lines.push('', bold('Patient'), ...pairs(s.patient));
  if (s.plan.length) lines.push('', bold('Plan'), ...pairs(s.plan));
  if (s.otherCoverage) lines.push('', bold('Other coverage'), ...textTable(s.otherCoverage));
  if (s.benefits) lines.push('', bold('Benefits'), ...textTable(s.benefits));
  if (s.collect) {
    lines.push('', bold('Collect at desk'));
    for (const l of s.collect.lines) {
      lines.push(`  ${l.charge}`, `    ${l.outcome}${l.confidence ? ` (${l.confidence})` : ''}`);
      for (const step of l.steps) lines.push(`      ${step}`);
      for (const a of l.assumptions) lines.push(`      assumed: ${a}`);
    }
    lines.push(`  ${bold(s.collect.total)}`);
  }
  if (s.errors.length) {
    lines.push('', bold('Errors'));
    for (const e of s.errors) {
      const where = e.location ? ` (${e.location})` : '';
      lines.push(`  ${e.code}  ${e.description}${where}`);
      if (e.followupAction) lines.push(`      Next step: ${e.followupAction}`);
      for (const r of e.resolutions) lines.push(`      - ${r}`);
    }
  }
  if (s.warnings.length) lines.push('', bold('Warnings'), ...s.warnings.map((w) => `  ${w}`));
  return `${lines.join('\n')}\n`;
}
