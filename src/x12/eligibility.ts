/**
 * The loop tree of one 271 → Eligibility271: who the payer, provider, subscriber and dependents are, whose
 * EB rows are the patient's, the AAA rejections by level, the plan reading and the trace numbers. People
 * are taken only from their own loops: the subscriber is the 2000C chosen by subscriber-choice.ts, its
 * dependents are its own 2000D children, and the source/receiver are its ancestors. When the patient is a
 * dependent, its 2100D facts (REF group and plan numbers, DTP dates) override the subscriber's 2100C ones.
 */
import type { EligibilityCheckError, SubscriberTraceNumber } from '../contract/check-response.ts';
import { readBenefit } from './benefits-information.ts';
import { AAA03_REJECT_REASONS, AAA04_FOLLOW_UP_ACTIONS, codeName, SPEC_AAA_ERRORS } from './codes.ts';
import { dateKey, planDates } from './dates.ts';
import { type IssueLog, warning } from './issues.ts';
import type { AaaRef, PartyLoop, Transaction271Tree, X12Loop } from './loops.ts';
import { readDependent, readPayer, readPerson, readProvider, readRefs } from './people.ts';
import { readPlan } from './plan.ts';
import { SuspectBenefitRows } from './snip.ts';
import type { SubscriberChoice } from './subscriber-choice.ts';
import type { X12Tokens } from './tokenizer.ts';
import type { AaaRejection, Eligibility271 } from './types.ts';

export type Eligibility271Body = Omit<Eligibility271, 'warnings' | 'issues'>;

export function readEligibility(
  t: X12Tokens,
  tree: Transaction271Tree,
  choice: SubscriberChoice,
  log: IssueLog,
): Eligibility271Body {
  const { subscriber } = choice;
  let patient = choice.patient;
  const receiver = subscriber?.parent ?? tree.parties.find((p) => p.level === 'B');
  const source = receiver?.parent ?? tree.parties.find((p) => p.level === 'A');
  const dependents = subscriber
    ? (subscriber.children.filter((c) => 'level' in c && c.level === 'D') as PartyLoop[])
    : [];

  if (patient === subscriber && subscriber && !subscriber.benefits.length) {
    const withBenefits = dependents.filter((d) => d.benefits.length);
    if (withBenefits.length === 1) {
      patient = withBenefits[0];
      log.add(warning('X12_BENEFITS_ON_DEPENDENT', undefined, position(t, patient!), 'HL'));
    } else if (withBenefits.length > 1) {
      log.add(warning('X12_BENEFITS_ON_SEVERAL_DEPENDENTS', undefined, position(t, withBenefits[0]!), 'HL'));
    }
  }

  const rejections: AaaRejection[] = [];
  const errors: EligibilityCheckError[] = [];
  const collected = { t, log, rejections, errors };
  collectAaa(collected, tree.headerAaa, true);
  collectAaa(collected, source?.aaa ?? [], true);
  collectAaa(collected, receiver?.aaa ?? [], true);
  collectAaa(collected, subscriber?.aaa ?? [], true);
  for (const d of dependents) collectAaa(collected, d.aaa, false);
  if (!subscriber && !errors.length) log.add(warning('X12_NO_SUBSCRIBER'));
  if (subscriber) structureWarnings(t, subscriber, dependents, patient, errors.length > 0, log);

  // Structural checks of the patient's rows (snip.ts) on the rows the reader flags, after all are read.
  const suspects = new SuspectBenefitRows();
  const benefitsInformation = (patient?.benefits ?? []).map((b) => readBenefit(t, b, log, suspects));
  suspects.report(t, log);
  const bht = tree.header.segments.find((i) => t.segmentId(i) === 'BHT');
  const patientDates = loopDates(t, patient?.name);
  // Usually the patient is the subscriber: one reading serves both.
  const subscriberDates = subscriber?.name === patient?.name ? patientDates : loopDates(t, subscriber?.name);
  const reference =
    patientDates.service ?? subscriberDates.service ?? (bht === undefined ? undefined : t.value(bht, 4));
  const plan = readPlan(benefitsInformation, reference);
  if (plan.conflict) {
    const first = patient?.benefits[0]?.segments[0];
    log.add(
      warning(
        'X12_CONFLICTING_PLAN_STATUS',
        plan.conflict,
        first === undefined ? undefined : t.position(first),
        'EB',
      ),
    );
  }

  const subscriberInfo = readPerson(t, subscriber?.name);
  const subscriberRefs = readRefs(t, subscriber?.name);
  // REF*6P, else REF*1L (4010 payers send the group or policy number there).
  const subscriberGroup = subscriberRefs.group ?? subscriberRefs.policy;
  if (subscriberGroup) subscriberInfo.groupNumber = subscriberGroup;
  // A dependent patient's own 2100D REF wins over the subscriber's 2100C one, qualifier by qualifier.
  const ownRefs = readRefs(t, patient === subscriber ? undefined : patient?.name);
  const group = ownRefs.group ?? ownRefs.policy ?? subscriberGroup;
  const planNumber = ownRefs.plan ?? subscriberRefs.plan;
  const planInformation: NonNullable<Eligibility271['planInformation']> = {};
  if (plan.planRow?.planCoverage) planInformation.planName = plan.planRow.planCoverage;
  if (plan.planRow?.insuranceTypeCode) planInformation.insuranceTypeCode = plan.planRow.insuranceTypeCode;
  if (plan.planRow?.insuranceType) planInformation.insuranceType = plan.planRow.insuranceType;
  if (group) planInformation.groupNumber = group;
  if (planNumber) planInformation.planNumber = planNumber;

  const result: Eligibility271Body = {
    payer: readPayer(t, source?.name),
    subscriber: subscriberInfo,
    dependents: dependents.map((d) => {
      const person = readDependent(t, d.name);
      const aaa = d.aaa.filter((a) => !a.loop.startsWith('2110')).map((a) => aaaError(t, a));
      if (aaa.length) person.aaaErrors = aaa;
      return person;
    }),
    benefitsInformation,
    subscriberTraceNumbers: traceNumbers(t, subscriber, patient),
    errors,
    rejections,
  };
  const provider = readProvider(t, receiver?.name);
  if (provider) result.provider = provider;
  if (Object.keys(planInformation).length) result.planInformation = planInformation;
  const dates = planDates(
    subscriberDates === patientDates ? patientDates : { ...subscriberDates, ...patientDates },
  );
  if (dates) result.planDateInformation = dates;
  if (plan.active !== undefined) result.planActive = plan.active;
  if (plan.planRow?.planCoverage) result.planCoverage = plan.planRow.planCoverage;
  if (plan.network) result.providerNetwork = { status: plan.network };
  return result;
}

/** Every AAA as a rejection; those outside 2110 loops also as the spec's errors when `toErrors`. */
function collectAaa(
  into: { t: X12Tokens; log: IssueLog; rejections: AaaRejection[]; errors: EligibilityCheckError[] },
  refs: AaaRef[],
  toErrors: boolean,
): void {
  const { t, log } = into;
  for (const ref of refs) {
    into.rejections.push(rejection(t, ref));
    if (ref.loop.startsWith('2110'))
      log.add(
        warning(
          'X12_BENEFIT_AAA',
          `Reason ${safeCode(t.value(ref.index, 3))} in loop ${ref.loop}.`,
          t.position(ref.index),
          'AAA',
        ),
      );
    else if (toErrors) into.errors.push(aaaError(t, ref));
  }
}

/**
 * What the 2000C/2000D loops should hold and do not: a subscriber without its 2100C NM1, a dependent
 * whose NM101 is not 03, and a subscriber answer with neither benefit rows nor an AAA saying why.
 */
function structureWarnings(
  t: X12Tokens,
  subscriber: PartyLoop,
  dependents: readonly PartyLoop[],
  patient: PartyLoop | undefined,
  rejected: boolean,
  log: IssueLog,
): void {
  // A DMG or REF without an NM1 still opens the 2100C loop: what counts is its NM1.
  if (!subscriber.name?.segments.some((i) => t.segmentId(i) === 'NM1'))
    log.add(warning('X12_SUBSCRIBER_WITHOUT_NAME', undefined, position(t, subscriber), 'HL'));
  for (const d of dependents) {
    const nm1 = d.name?.segments.find((i) => t.segmentId(i) === 'NM1');
    if (nm1 === undefined) continue;
    const entity = t.upperValue(nm1, 1);
    if (entity !== '03') {
      log.add(warning('X12_DEPENDENT_ENTITY', `NM101 is ${safeCode(entity)}.`, t.position(nm1), 'NM1'));
    }
  }
  const aaa = subscriber.aaa.length > 0 || (patient?.aaa.length ?? 0) > 0;
  if (!rejected && !aaa && !patient?.benefits.length) {
    log.add(warning('X12_SUBSCRIBER_EMPTY', undefined, position(t, subscriber), 'HL'));
  }
}

const position = (t: X12Tokens, p: PartyLoop) =>
  p.segments[0] === undefined ? undefined : t.position(p.segments[0]);
/** AAA03 for a message: a known code or its length-limited shape, never free text. */
const safeCode = (code: string) => (/^[A-Z0-9]{1,3}$/i.test(code) ? code : '(invalid)');

function rejection(t: X12Tokens, ref: AaaRef): AaaRejection {
  return {
    loop: ref.loop.replace('2000', '2100'),
    validRequest: t.value(ref.index, 1) || undefined,
    code: t.upperValue(ref.index, 3),
    followUpCode: t.upperValue(ref.index, 4) || undefined,
    position: t.position(ref.index),
  };
}

function aaaError(t: X12Tokens, ref: AaaRef): EligibilityCheckError {
  const code = t.upperValue(ref.index, 3);
  const spec = SPEC_AAA_ERRORS[code];
  const error: EligibilityCheckError = {
    code,
    description:
      spec?.description ?? codeName(AAA03_REJECT_REASONS, code) ?? `Reject reason ${safeCode(code)}`,
    field: 'AAA',
  };
  const followupAction =
    spec?.followupAction ?? codeName(AAA04_FOLLOW_UP_ACTIONS, t.upperValue(ref.index, 4));
  if (followupAction) error.followupAction = followupAction;
  error.location = ref.loop === 'header' ? 'Header' : `Loop ${ref.loop.replace('2000', '2100')}`;
  return error;
}

function loopDates(t: X12Tokens, name: X12Loop | undefined): Record<string, string> {
  const dates: Record<string, string> = {};
  for (const i of name?.segments ?? []) {
    if (t.segmentId(i) === 'DTP' && t.value(i, 3)) dates[dateKey(t.value(i, 1))] = t.value(i, 3);
  }
  return dates;
}

const TRACE_TYPES: Record<string, string> = {
  '1': 'Current Transaction Trace Numbers',
  '2': 'Referenced Transaction Trace Numbers',
};

function traceNumbers(t: X12Tokens, subscriber?: PartyLoop, patient?: PartyLoop): SubscriberTraceNumber[] {
  const out: SubscriberTraceNumber[] = [];
  if (subscriber) for (const i of subscriber.traces) out.push(traceNumber(t, i));
  if (patient && patient !== subscriber) for (const i of patient.traces) out.push(traceNumber(t, i));
  return out;
}

function traceNumber(t: X12Tokens, i: number): SubscriberTraceNumber {
  const type = t.value(i, 1);
  const reference = t.value(i, 2);
  const company = t.value(i, 3);
  const trace: SubscriberTraceNumber = {};
  if (type) trace.traceTypeCode = type;
  const typeName = TRACE_TYPES[type];
  if (typeName) trace.traceType = typeName;
  if (reference) trace.referenceIdentification = reference;
  if (company) trace.originatingCompanyIdentifier = company;
  // TRN*2 echoes the inquirer's trace; TRN*1 is the payer's own.
  if (type === '2' && reference) trace.originatingTransactionTraceNumber = reference;
  if (type === '1' && reference) trace.payerTraceNumber = reference;
  return trace;
}
