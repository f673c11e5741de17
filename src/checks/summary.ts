/**
 * A finished check as plain text a person reads: the verdict, who and which plan, a benefits table with the
 * seven service types, errors with what to do. One model for the CLI summary (`elig check --wait`), the
 * portal's print view and its PDF, so the three say the same thing in the same words. Pure: a result body
 * (and the request, for a check the payer never answered) in, strings out.
 */
import type { StoredCheckRequest } from '../contract/check-request.ts';
import {
  type BenefitEntry,
  type EligibilityCheckResponse,
  type OtherCoverage,
  PRODUCT_SERVICE_TYPES,
  type Verdict,
} from '../contract/check-response.ts';
import { type CollectSummary, collectAtDesk } from './collect-summary.ts';
import { verdictOf } from './verdict.ts';

export interface SummaryTable {
  columns: string[];
  rows: string[][];
}

export interface SummaryError {
  code: string;
  description: string;
  followupAction: string;
  /** What to check and change, one line per suggestion. */
  resolutions: string[];
  location: string;
}

export interface CheckSummaryText {
  /** Undefined while IN_PROGRESS. */
  verdict?: Verdict;
  /** Label and value pairs, values never empty. */
  patient: [string, string][];
  plan: [string, string][];
  /** The other coverage the payer reports (coordination of benefits); only when there is some. */
  otherCoverage?: SummaryTable;
  /** The seven service types, in the spec's order; only for a COMPLETED check. */
  benefits?: SummaryTable;
  errors: SummaryError[];
  warnings: string[];
  /** What to collect at the desk, when the check carries estimates (collect-summary.ts). */
  collect?: CollectSummary;
}

const NOT_STATED = '-';
const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
const wholeUsd = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  maximumFractionDigits: 0,
});

export function moneyText(n: number | null | undefined): string {
  if (typeof n !== 'number' || !Number.isFinite(n)) return NOT_STATED;
  return Number.isInteger(n) ? wholeUsd.format(n) : usd.format(n);
}

function percentText(fraction: number | null | undefined): string {
  if (typeof fraction !== 'number' || !Number.isFinite(fraction)) return NOT_STATED;
  return `${Number((fraction * 100).toFixed(1))}%`;
}

/** `20260101` → `2026-01-01`; `20260101-20261231` → `2026-01-01 to 2026-12-31`. */
export function dateText(text: string | null | undefined): string {
  if (!text) return NOT_STATED;
  const one = (d: string) => (/^\d{8}$/.test(d) ? `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6)}` : d);
  const range = /^(\d{8})-(\d{8})$/.exec(text);
  return range ? `${one(range[1]!)} to ${one(range[2]!)}` : one(text);
}

function withLeft(total: number | null | undefined, left: number | null | undefined): string {
  if (total == null && left == null) return NOT_STATED;
  return left == null ? moneyText(total) : `${moneyText(total)} (${moneyText(left)} left)`;
}

function coverageText(b: BenefitEntry | undefined): string {
  if (!b) return 'Not found';
  const network = b.inNetwork === true ? ', in network' : b.inNetwork === false ? ', out of network' : '';
  return `${b.coverageStatus === 'Active Coverage' ? 'Covered' : (b.coverageStatus ?? 'Not stated')}${network}`;
}

const BENEFIT_COLUMNS = [
  'Service type',
  'Coverage',
  'Copay',
  'Coinsurance',
  'Deductible',
  'Out-of-pocket max',
  'Visits used/limit',
  'Prior auth',
];

function benefitRow(serviceType: string, b: BenefitEntry | undefined): string[] {
  if (!b) return [serviceType, coverageText(b), ...BENEFIT_COLUMNS.slice(2).map(() => NOT_STATED)];
  const deductible =
    b.deductibleApplies === false ? 'Does not apply' : withLeft(b.deductible, b.deductibleRemaining);
  const visits =
    b.visitLimit == null && b.visitsUsed == null
      ? NOT_STATED
      : `${b.visitsUsed ?? NOT_STATED}/${b.visitLimit ?? NOT_STATED}`;
  const auth =
    b.authorizationRequired === true ? 'Required' : b.authorizationRequired === false ? 'No' : NOT_STATED;
  return [
    serviceType,
    coverageText(b),
    moneyText(b.copay),
    percentText(b.coinsurance),
    deductible,
    withLeft(b.outOfPocketMax, b.outOfPocketRemaining),
    visits,
    auth,
  ];
}

const ORDER_TEXT: Readonly<Record<OtherCoverage['order'], string>> = {
  PRIMARY: 'Primary (pays first)',
  SECONDARY: 'Secondary (pays after this plan)',
  TERTIARY: 'Tertiary',
  UNKNOWN: 'Not stated',
};

/** The dates of an other coverage, named: `coordinationOfBenefits 2024-01-01`. */
function coverageDates(dates: Record<string, string> | undefined): string {
  if (!dates) return NOT_STATED;
  return Object.entries(dates)
    .map(([k, v]) => `${k} ${dateText(v)}`)
    .join('; ');
}

/** One row per other coverage, the order first: whether this plan pays first is what a front desk needs. */
export function otherCoverageTable(coverage: readonly OtherCoverage[] | undefined): SummaryTable | undefined {
  if (!coverage?.length) return undefined;
  return {
    columns: ['Order', 'Payer', 'Payer id', 'Insurance type', 'Member id', 'Group', 'Dates'],
    rows: coverage.map((c) => [
      ORDER_TEXT[c.order],
      c.payerName ?? c.planCoverage ?? NOT_STATED,
      c.payerId ?? NOT_STATED,
      c.insuranceType ?? c.insuranceTypeCode ?? NOT_STATED,
      c.memberId ?? NOT_STATED,
      c.groupNumber ?? NOT_STATED,
      coverageDates(c.dates),
    ]),
  };
}

/** First, middle and last name, as present ('' when none). */
export function personName(
  p: { firstName?: string; middleName?: string; lastName?: string } | undefined,
): string {
  return [p?.firstName, p?.middleName, p?.lastName].filter(Boolean).join(' ');
}

/** The provider as a person reads it: its organization or name, and its NPI. */
export function providerText(
  p: { organizationName?: string; firstName?: string; lastName?: string; npi?: string } | undefined,
): string | undefined {
  return p ? `${p.organizationName ?? personName(p)}${p.npi ? `, NPI ${p.npi}` : ''}` : undefined;
}

/** Drops the pairs without a value. */
function present(pairs: [string, string | undefined][]): [string, string][] {
  return pairs.filter((p): p is [string, string] => Boolean(p[1]));
}

/**
 * The payer as sent and as it answered: "Name (id)", or the id it was sent to when the payer gave no name;
 * a payer outside the directory says so (SH01), so a typo in the id is visible at a glance.
 */
export function payerText(
  body: EligibilityCheckResponse | undefined,
  request?: StoredCheckRequest | null,
): string | undefined {
  const id = body?.payer?.payerId ?? body?.tradingPartnerServiceId ?? request?.tradingPartnerServiceId;
  const name = body?.payer?.payerName;
  if (name) return id ? `${name} (${id})` : name;
  if (!id) return undefined;
  return body?.verdict?.reason === 'SH01' || body?.errors?.some((e) => e.code === 'SH01')
    ? `${id} (not in the payer directory)`
    : id;
}

export function summarizeCheck(
  body: EligibilityCheckResponse,
  request?: StoredCheckRequest | null,
): CheckSummaryText {
  const sub = body.subscriber ?? request?.subscriber;
  const provider = body.provider ?? request?.provider;
  const network = body.providerNetwork?.status;
  const summary: CheckSummaryText = {
    verdict: body.verdict ?? verdictOf(body),
    patient: present([
      ['Patient', personName(sub) || undefined],
      ['Member id', sub?.memberId],
      ['Date of birth', sub?.dateOfBirth ? dateText(sub.dateOfBirth) : undefined],
      ['Provider', providerText(provider)],
    ]),
    plan: present([
      ['Payer', payerText(body, request)],
      ['Plan', body.planInformation?.planName ?? body.planCoverage],
      ['Insurance type', body.planInformation?.insuranceType],
      ['Group number', body.planInformation?.groupNumber ?? body.subscriber?.groupNumber],
      ['Plan active', body.planActive === undefined ? undefined : body.planActive ? 'Yes' : 'No (inactive)'],
      [
        'Eligibility',
        body.planDateInformation?.eligibility ? dateText(body.planDateInformation.eligibility) : undefined,
      ],
      ['Plan dates', body.planDateInformation?.plan ? dateText(body.planDateInformation.plan) : undefined],
      [
        'Network',
        network
          ? `${network}${body.providerNetwork?.tier ? `, tier ${body.providerNetwork.tier}` : ''}`
          : undefined,
      ],
    ]),
    errors: (body.errors ?? []).map((e) => ({
      code: e.code,
      description: e.description,
      followupAction: e.followupAction ?? '',
      resolutions: (e.possibleResolutions ?? '')
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean),
      location: e.location ?? '',
    })),
    warnings: (body.warnings ?? []).map((w) => `${w.code}: ${w.description}`),
  };
  const other = otherCoverageTable(body.otherCoverage);
  if (other) summary.otherCoverage = other;
  if (body.status === 'COMPLETED') {
    const byType = new Map((body.benefits ?? []).map((b) => [b.serviceType as string, b]));
    summary.benefits = {
      columns: BENEFIT_COLUMNS,
      rows: PRODUCT_SERVICE_TYPES.map((t) => benefitRow(t, byType.get(t))),
    };
    if (body.estimates?.length) summary.collect = collectAtDesk(body.estimates, body.estimateTotal);
  }
  return summary;
}
