/**
 * `elig x12 parse FILE [--raw]`: prints a 271 file as the API's result JSON (payer, provider, subscriber,
 * dependents, plan, benefitsInformation, errors, warnings; plus `benefits` and `confidence` from the
 * benefit interpreter when it is present), or with --raw the loop tree of every 271 in the file.
 * Exit 0 when the file was read; 1 when it is not readable X12 or is incomplete, with the typed issues on
 * stderr (codes and segment positions only, never element values).
 */
import { readFile } from 'node:fs/promises';
import { interpretBenefits } from '../../benefits/interpret.ts';
import { parse271, parse271Tree } from '../../x12/parse271.ts';
import { type Eligibility271, X12Error, type X12Issue } from '../../x12/types.ts';
import type { CommandSpec, Io } from '../args.ts';

export const X12_PARSE_COMMAND: CommandSpec = {
  name: 'x12 parse',
  summary: "print a 271 file as the API's result JSON (--raw: the loop tree)",
  options: { raw: { type: 'boolean', description: 'print the loop tree of every 271 instead' } },
  positionals: [{ name: 'FILE', description: 'an X12 271 (or 999/TA1) file' }],
  run: ({ positionals, values, io }) => parseFile(positionals[0]!, values.raw === true, io),
};

async function parseFile(file: string, raw: boolean, out: Io): Promise<number> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    out.stderr.write(`elig: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}\n`);
    return 1;
  }
  try {
    if (raw) {
      const tree = parse271Tree(text);
      out.stdout.write(`${JSON.stringify(tree, null, 2)}\n`);
      return reportIssues(tree.issues, out);
    }
    const outcome = parse271(text);
    if (outcome.kind === 'rejected') {
      out.stdout.write(
        `${JSON.stringify({ rejected: outcome.rejection, issues: outcome.issues }, null, 2)}\n`,
      );
      return 0;
    }
    out.stdout.write(`${JSON.stringify(await resultBody(outcome.result), null, 2)}\n`);
    return reportIssues(outcome.result.issues, out);
  } catch (err) {
    if (!(err instanceof X12Error)) throw err;
    out.stderr.write(`elig: ${err.message}\n${err.issues.map(issueLine).join('')}`);
    return 1;
  }
}

/** The spec's result fields in the spec's order, with the interpreted `benefits` and `confidence`. */
async function resultBody(r: Eligibility271): Promise<Record<string, unknown>> {
  const interpretation = interpretBenefits({
    benefitsInformation: r.benefitsInformation,
    planActive: r.planActive,
    requestedServiceTypeCodes: [],
    asOf: new Date().toISOString().slice(0, 10).replaceAll('-', ''),
  });
  return {
    payer: r.payer,
    provider: r.provider,
    subscriber: r.subscriber,
    dependents: r.dependents,
    planInformation: r.planInformation,
    planDateInformation: r.planDateInformation,
    planActive: r.planActive,
    planCoverage: r.planCoverage,
    providerNetwork: r.providerNetwork,
    benefits: interpretation.benefits,
    ...(interpretation.otherCoverage ? { otherCoverage: interpretation.otherCoverage } : {}),
    errors: r.errors,
    warnings: [...r.warnings, ...interpretation.warnings],
    benefitsInformation: r.benefitsInformation,
    confidence: interpretation.confidence,
    subscriberTraceNumbers: r.subscriberTraceNumbers,
  };
}

const issueLine = (i: X12Issue) =>
  `  ${i.severity} ${i.code}${i.position ? ` at segment ${i.position}` : ''}${i.segmentId ? ` (${i.segmentId})` : ''}: ${i.message}\n`;

/** Issues go to stderr; error-severity ones (an incomplete file) make the exit code 1. */
function reportIssues(issues: X12Issue[], out: Io): number {
  if (issues.length) out.stderr.write(issues.map(issueLine).join(''));
  return issues.some((i) => i.severity === 'error') ? 1 : 0;
}
