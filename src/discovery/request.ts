/**
 * Reading a discovery request (contract/discovery.ts): its own fields here (the payers, the patient's state
 * and ZIP code, unknown fields), and the provider, names and dates as a single submit reads them (through
 * the intake, src/checks/intake.ts: its repairs and validation), worded with the discovery's field names. Messages never
 * echo a value.
 */
import { takeInDemographicSearch } from '../checks/intake.ts';
import { type FieldProblem, formatProblems } from '../checks/request.ts';
import { DiscoveryPatient, DiscoveryRequest, MAX_DISCOVERY_PAYERS } from '../contract/discovery.ts';

export type ReadDiscovery = { ok: true; request: DiscoveryRequest } | { ok: false; problem: string };

type Loose = Record<string, unknown>;
const isObject = (v: unknown): v is Loose => typeof v === 'object' && v !== null && !Array.isArray(v);

const PAYER_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,49}$/;

/** A field name as it may be echoed: short identifier-like names only (a key could carry PHI). */
const echoed = (name: string) => (/^[A-Za-z_][A-Za-z0-9_]{0,39}$/.test(name) ? `\`${name}\`` : 'a field');

function unknownFields(object: Loose, known: readonly string[], where: string): FieldProblem[] {
  return Object.keys(object)
    .filter((k) => !known.includes(k))
    .map((k) => ({ field: where, problem: `has an unknown field ${echoed(k)}` }));
}

/** The discovery's own fields: what no single submit has. */
function ownProblems(body: Loose, patient: Loose): FieldProblem[] {
  const problems = [
    ...unknownFields(body, Object.keys(DiscoveryRequest.properties), 'the request'),
    ...unknownFields(patient, Object.keys(DiscoveryPatient.properties), 'patient'),
  ];
  if (patient.state !== undefined && (typeof patient.state !== 'string' || !/^[A-Z]{2}$/.test(patient.state)))
    problems.push({ field: 'patient.state', problem: 'must be a two-letter US state code, e.g. TX' });
  const zip = patient.postalCode;
  if (zip !== undefined && (typeof zip !== 'string' || !/^[0-9]{5}([0-9]{4})?$/.test(zip)))
    problems.push({
      field: 'patient.postalCode',
      problem: 'must be a ZIP code of 5 or 9 digits, e.g. 75201',
    });
  const payers = body.payers;
  if (
    payers !== undefined &&
    (!Array.isArray(payers) ||
      payers.length < 1 ||
      payers.length > MAX_DISCOVERY_PAYERS ||
      !payers.every((p) => typeof p === 'string' && PAYER_ID.test(p)))
  ) {
    problems.push({
      field: 'payers',
      problem: `must be a list of 1 to ${MAX_DISCOVERY_PAYERS} payer ids of the directory, e.g. ["SANDBOX"]`,
    });
  }
  return problems;
}

/** A single submit's field names as the discovery request names them. */
export function renamed(problems: FieldProblem[]): FieldProblem[] {
  return problems.map((p) => ({
    ...p,
    field: p.field
      .replace(/^subscriber(\.|$)/, 'patient$1')
      .replace(/^encounter\.dateOfService$/, 'dateOfService'),
  }));
}

/** The request, or every problem with it in one message. */
export function readDiscoveryRequest(body: unknown, now = new Date()): ReadDiscovery {
  if (!isObject(body)) return { ok: false, problem: 'Invalid request: body must be a JSON object.' };
  const patient = isObject(body.patient) ? body.patient : undefined;
  if (!patient)
    return { ok: false, problem: 'Invalid request: patient is required (firstName, lastName, dateOfBirth).' };
  const { state: _state, postalCode: _postalCode, ...subscriber } = patient;
  const asSubmit = {
    tradingPartnerServiceId: 'DISCOVERY',
    provider: body.provider,
    subscriber,
    ...(body.dateOfService !== undefined ? { encounter: { dateOfService: body.dateOfService } } : {}),
  };
  // Without a directory the intake checks the body alone: the payers are checked one by one later.
  const taken = takeInDemographicSearch(asSubmit, { now });
  const problems = [...ownProblems(body, patient), ...(taken.ok ? [] : renamed(taken.problems))];
  if (problems.length) return { ok: false, problem: formatProblems(problems) };
  // The values as sent: each inquiry's intake repairs them again and records the repairs on its check.
  return { ok: true, request: body as DiscoveryRequest };
}
