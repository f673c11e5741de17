/**
 * /portal/checks/:id/resubmit, "Fix and resubmit": the run-a-check form filled in from a check that failed,
 * with the field each error points at highlighted and the error's resolution beside it. The form posts to
 * /portal/checks/new like any other, so the corrected request is a new check; the failed one stays as it was.
 * Member details come from the stored request, server-side: the URL carries only the check id.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestFieldOf } from '../../checks/error-catalog.ts';
import { getCheck } from '../../checks/list.ts';
import type { StoredCheckRequest } from '../../contract/check-request.ts';
import type { EligibilityCheckError } from '../../contract/check-response.ts';
import { listedPayer } from '../../payers/directory.ts';
import { listProviders, type OrganizationProvider } from '../../tenancy/providers.ts';
import { IdParams, notFound, type PortalDeps, sendPage, session } from '../context.ts';
import {
  FIELDS,
  type FieldName,
  OTHER_PROVIDER,
  type Prefill,
  resubmitPage,
  SERVICE_TYPE_CHOICES,
  type Values,
} from '../views/checks-new.ts';
import { choiceFor } from './checks-new.ts';

const NAME_FIELDS = new Set([
  'subscriber.name',
  'subscriber.firstName',
  'subscriber.middleName',
  'subscriber.lastName',
]);

/**
 * The form fields a request field stands for. A name reject points at both names, whichever part the
 * mapping names: the payer does not say which part it could not match.
 */
function formFieldsOf(requestField: string | undefined): FieldName[] {
  if (!requestField) return [];
  if (NAME_FIELDS.has(requestField)) return ['subscriber.firstName', 'subscriber.lastName'];
  const base = requestField.replace(/\[\d+\]$/, '');
  return base in FIELDS ? [base as FieldName] : [];
}

/**
 * The form filled in from a stored request: codes a service type name asks with are ticked by that name
 * (98 ticks both nutrition products: either asks with it), the others stay typed; the provider is picked
 * from the list when it is there, unless an error points at it (then it is shown typed, to correct).
 */
function valuesOf(
  r: StoredCheckRequest,
  organizationName: string,
  providers: readonly OrganizationProvider[],
  highlights: Prefill['highlights'],
): Values {
  const codes = r.encounter?.serviceTypeCodes ?? [];
  const named = SERVICE_TYPE_CHOICES.filter((c) => codes.includes(c.code));
  const provider = { organizationName: r.provider.organizationName ?? organizationName, npi: r.provider.npi };
  const providerBlamed = highlights.some((h) => h.field.startsWith('provider.'));
  const choice = choiceFor(providers, provider);
  return {
    tradingPartnerServiceId: r.tradingPartnerServiceId,
    'provider.choice': providerBlamed && choice ? OTHER_PROVIDER : choice,
    'provider.organizationName': provider.organizationName,
    'provider.npi': provider.npi,
    'subscriber.memberId': r.subscriber.memberId ?? '',
    'subscriber.firstName': r.subscriber.firstName,
    'subscriber.lastName': r.subscriber.lastName,
    'subscriber.dateOfBirth': r.subscriber.dateOfBirth,
    'encounter.serviceTypes': named.map((c) => c.name).join(','),
    'encounter.serviceTypeCodes': codes.filter((c) => !named.some((n) => n.code === c)).join(', '),
    'encounter.dateOfService': r.encounter?.dateOfService ?? '',
  };
}

function highlightsOf(errors: EligibilityCheckError[]): Prefill['highlights'] {
  return errors.flatMap((e) => {
    const advice = e.possibleResolutions ?? e.followupAction;
    const message = `${e.description} (code ${e.code}).${advice ? ` ${advice}` : ''}`;
    return formFieldsOf(requestFieldOf(e.code)).map((field) => ({ field, message }));
  });
}

export const resubmitCheckRoutes: FastifyPluginAsyncTypebox<PortalDeps> = async (portal, deps) => {
  const payers = (deps.payers?.entries ?? []).map(listedPayer);
  portal.get('/checks/:id/resubmit', { schema: { params: IdParams } }, async (request, reply) => {
    const s = session(request);
    const check = await getCheck(deps.db, s.user.organizationId, request.params.id);
    if (!check?.request) return notFound(request, reply);
    const errors = check.result?.errors ?? [];
    const highlights = highlightsOf(errors);
    const providers = await listProviders(deps.db, s.user.organizationId);
    const values = valuesOf(check.request, s.organizationName, providers, highlights);
    return sendPage(reply, resubmitPage(s, payers, values, { id: check.id, errors }, highlights, providers));
  });
};
