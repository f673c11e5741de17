/**
 * Which 270s one check sends: the payer's `stcStrategy` (docs/payers.md "Payer profiles: how each payer is
 * asked") applied to the service type codes of the request, or, when it names none, to the codes the product
 * service types are read from. Pure: codes and a profile in, a list of inquiries out.
 */
import { PRIMARY_CODE } from '../benefits/service-types.ts';
import type { PayerEntry, StcStrategy } from '../payers/connector.ts';
import type { EqForm } from '../x12/build270.ts';

/** One 270 to send: its service type codes and how its EQ writes them. */
export interface PlannedInquiry {
  serviceTypeCodes: string[];
  eqForm: EqForm;
}

/** Health Benefit Plan Coverage: the plan in general. */
const GENERIC = '30';

/**
 * What a check without codes asks a payer: `30` for the plan's status and plan-level amounts, then the code
 * each product service type is read from first (98 office visit for both nutrition products, PT, MH, AD, AF,
 * 33). A CAQH CORE-certified payer answers a bare `30` with the plan and CORE's own list (1, 33, 35, 47, 48,
 * 50, 86, 88, 98, AL, MH, UC), which has no physical, occupational or speech therapy; a payer outside CORE
 * may answer `30` with the plan alone. Asking each product's code is what lets its entry rest on the payer's
 * own rows instead of the plan-level fallback.
 */
export const PRODUCT_INQUIRY_CODES: readonly string[] = [GENERIC, ...new Set(Object.values(PRIMARY_CODE))];

/** The codes a check asks about: the request's, else the payer's default (see PRODUCT_INQUIRY_CODES). */
export function inquiryCodes(
  requested: readonly string[] | undefined,
  withoutCodes: PayerEntry['inquiryWithoutCodes'] = 'products',
): string[] {
  if (requested?.length) return [...requested];
  return withoutCodes === 'plan' ? [GENERIC] : [...PRODUCT_INQUIRY_CODES];
}

/**
 * The inquiries of one check, in the order they are sent. `repeat` keeps the codes exactly as given (today's
 * 270); the other strategies ask each code once.
 */
export function planInquiries(codes: readonly string[], strategy: StcStrategy = 'repeat'): PlannedInquiry[] {
  switch (strategy) {
    case 'repeat':
      return [{ serviceTypeCodes: [...codes], eqForm: 'repeat' }];
    case 'loops':
      return [{ serviceTypeCodes: [...new Set(codes)], eqForm: 'loops' }];
    case 'separate':
      return [...new Set(codes)].map((code) => ({ serviceTypeCodes: [code], eqForm: 'repeat' }));
    case 'generic-only':
      return [{ serviceTypeCodes: [GENERIC], eqForm: 'repeat' }];
  }
}

/**
 * The codes the interpreter is told were requested: the request's and every code an inquiry asked, so an
 * entry answered only by a fallback says that its code was asked (entry.ts).
 */
export function askedCodes(
  requested: readonly string[] | undefined,
  plan: readonly PlannedInquiry[],
): string[] {
  const asked = new Set(requested ?? []);
  for (const inquiry of plan) for (const code of inquiry.serviceTypeCodes) asked.add(code);
  return [...asked];
}

/** The warning of a check some of whose inquiries the payer refused (docs/warnings.md). */
export const INQUIRY_REFUSED_WARNING_CODE = 'INQUIRY_REFUSED';
