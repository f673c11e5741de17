/**
 * A FHIR client's round trip (docs/fhir.md): submit a CoverageEligibilityRequest for a sandbox member, poll
 * the CoverageEligibilityResponse search until the answer is there, then print what it says per service
 * type. Plain fetch and FHIR R4 JSON: any FHIR client library works the same way. Node 20+.
 *
 *   ELIG_API_KEY=elig_test_... npx tsx examples/fhir-check.ts        # the service on http://127.0.0.1:8080
 *   ELIG_URL=https://eligibility.example.com ELIG_API_KEY=... npx tsx examples/fhir-check.ts
 *
 * The types come from @medplum/fhirtypes (types only: `npm install -D @medplum/fhirtypes`).
 */
import type {
  Bundle,
  CoverageEligibilityRequest,
  CoverageEligibilityResponse,
  OperationOutcome,
} from '@medplum/fhirtypes';

const apiKey = process.env.ELIG_API_KEY;
if (!apiKey) {
  console.error('Set ELIG_API_KEY to an API key (printed at the first start, or: npx elig key create).');
  process.exit(2);
}
const base = `${process.env.ELIG_URL ?? 'http://127.0.0.1:8080'}/fhir/R4`;
// SMART clients send their token as Bearer; the service takes its API key that way (or as `Key …`).
const headers = { authorization: `Bearer ${apiKey}`, accept: 'application/fhir+json' };

// A sandbox member (docs/sandbox.md, Table A), everything contained in the request.
const request: CoverageEligibilityRequest = {
  resourceType: 'CoverageEligibilityRequest',
  status: 'active',
  purpose: ['benefits'],
  created: new Date().toISOString(),
  contained: [
    {
      resourceType: 'Patient',
      id: 'pat',
      name: [{ family: 'DOE', given: ['JANE'] }],
      birthDate: '1980-01-15',
    },
    {
      resourceType: 'Organization',
      id: 'clinic',
      name: 'Demo Clinic',
      identifier: [{ system: 'http://hl7.org/fhir/sid/us-npi', value: '1234567893' }],
    },
    {
      resourceType: 'Organization',
      id: 'payer',
      identifier: [
        {
          type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0203', code: 'NIIP' }] },
          system: 'urn:eligibility-service:payer-id',
          value: 'SANDBOX',
        },
      ],
    },
    {
      resourceType: 'Coverage',
      id: 'cov',
      status: 'active',
      subscriberId: 'SBX1000001',
      beneficiary: { reference: '#pat' },
      payor: [{ reference: '#payer' }],
    },
  ],
  patient: { reference: '#pat' },
  provider: { reference: '#clinic' },
  insurer: { reference: '#payer' },
  insurance: [{ focal: true, coverage: { reference: '#cov' } }],
  item: [{ category: { coding: [{ system: 'https://codesystem.x12.org/005010/1365', code: 'MH' }] } }],
};

class FhirRefusal extends Error {}

async function fhir<T>(path: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(base + path, { ...init, headers: { ...headers, ...init.headers } });
  const body = await res.json();
  if (!res.ok) {
    // Every refusal is an OperationOutcome: each issue says what is wrong and where (expression).
    const issues = (body as OperationOutcome).issue?.map(
      (i) => `${i.code}${i.expression ? ` at ${i.expression[0]}` : ''}: ${i.diagnostics}`,
    );
    throw new FhirRefusal(`${res.status} OperationOutcome: ${issues?.join('; ')}`);
  }
  return body as T;
}

try {
  await main();
} catch (err) {
  if (!(err instanceof FhirRefusal)) throw err;
  console.error(err.message);
  process.exit(1);
}

async function main() {
  const created = await fhir<CoverageEligibilityRequest>('/CoverageEligibilityRequest', {
    method: 'POST',
    headers: { 'content-type': 'application/fhir+json' },
    body: JSON.stringify(request),
  });
  console.error(`submitted request ${created.id}`);

  // Empty while the check is in progress; one entry once it is finished. About once a second is enough.
  let response: CoverageEligibilityResponse | undefined;
  const deadline = Date.now() + 10 * 60 * 1000;
  while (!response) {
    const bundle = await fhir<Bundle<CoverageEligibilityResponse>>(
      `/CoverageEligibilityResponse?request=CoverageEligibilityRequest/${created.id}`,
    );
    response = bundle.entry?.[0]?.resource;
    if (response) break;
    if (Date.now() > deadline) throw new Error('no answer within 10 minutes');
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }

  const money = (m?: { value?: number }) => (m?.value === undefined ? undefined : m.value);
  console.log(
    JSON.stringify(
      {
        id: response.id,
        outcome: response.outcome,
        disposition: response.disposition,
        inforce: response.insurance?.[0]?.inforce,
        items: response.insurance?.[0]?.item?.map((item) => ({
          serviceType: item.name,
          unit: item.unit?.coding?.[0]?.code,
          network: item.network?.coding?.[0]?.code,
          excluded: item.excluded ?? false,
          authorizationRequired: item.authorizationRequired,
          benefits: Object.fromEntries(
            (item.benefit ?? []).map((b) => [
              b.type.text,
              {
                allowed: money(b.allowedMoney) ?? b.allowedUnsignedInt ?? b.allowedString,
                used: money(b.usedMoney) ?? b.usedUnsignedInt,
              },
            ]),
          ),
        })),
        errors: response.error?.map((e) => `${e.code.coding?.[0]?.code} ${e.code.text}`),
      },
      null,
      2,
    ),
  );
}
