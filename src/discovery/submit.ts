/**
 * Accepting an insurance discovery (docs/discovery.md): a patient's name and date of birth, without a
 * member id, asked of several payers at once. Each candidate payer becomes an ordinary check, a
 * demographic inquiry taken in by the one intake (src/checks/intake.ts: same repairs, same messages), linked
 * to the discovery; the check worker, the connection limits and the retries do the calls, and the
 * finishing transaction of the last inquiry completes the discovery (src/checks/finish.ts).
 *
 * The candidates: the payers the request names, else the organization's discovery list (an owner setting),
 * else every directory payer that takes demographic searches (narrowed by the patient's state where a
 * payer lists the states it serves). At most MAX_DISCOVERY_PAYERS per discovery, and the organization's
 * payers asked per UTC day are capped (DISCOVERY_MAX_INQUIRIES_PER_DAY): the count and the insert are one
 * step under the organization's lock (src/store/discoveries.ts), so the cap holds under races.
 */
import { takeInDemographicSearch } from '../checks/intake.ts';
import { formatProblems } from '../checks/request.ts';
import type { DiscoveryAccepted, DiscoveryRequest } from '../contract/discovery.ts';
import { MAX_DISCOVERY_PAYERS } from '../contract/discovery.ts';
import { uuidv7 } from '../ids.ts';
import type { PayerEntry } from '../payers/connector.ts';
import type { Db } from '../store/db.ts';
import { insertDiscoveryWithInquiries, type NewDiscoveryInquiry } from '../store/discoveries.ts';
import { findDiscoveryPayers } from '../store/organizations.ts';
import { readDiscoveryRequest, renamed } from './request.ts';

/** What discovery reads of the payer directory (`PayerDirectory` has it). */
export interface DiscoveryPayers {
  resolvePayer(tradingPartnerServiceId: string): PayerEntry | undefined;
  readonly entries: readonly PayerEntry[];
}

/** DISCOVERY_MAX_INQUIRIES_PER_DAY's default, for callers built without a configuration (tests, the portal harness). */
export const DEFAULT_DISCOVERY_MAX_INQUIRIES_PER_DAY = 500;

export interface DiscoverySubmitOptions {
  payers: DiscoveryPayers;
  /** DISCOVERY_MAX_INQUIRIES_PER_DAY. */
  maxInquiriesPerDay: number;
  wake: () => void | Promise<void>;
}

export type DiscoverySubmitResult =
  | { ok: true; accepted: DiscoveryAccepted }
  | { ok: false; invalid: string }
  | { ok: false; overCap: { askedToday: number; asking: number; limit: number } };

/** Takes a discovery request in: the inquiries it makes, or why it cannot be made. */
export async function submitDiscovery(
  db: Db,
  organizationId: string,
  body: unknown,
  options: DiscoverySubmitOptions,
): Promise<DiscoverySubmitResult> {
  const read = readDiscoveryRequest(body);
  if (!read.ok) return { ok: false, invalid: read.problem };
  const candidates = await candidatePayers(db, organizationId, read.request, options.payers);
  if (typeof candidates === 'string') return { ok: false, invalid: candidates };
  const created = Date.now();
  const inquiries: NewDiscoveryInquiry[] = [];
  for (const [index, payer] of candidates.entries()) {
    const taken = takeInDemographicSearch(inquiryBody(read.request, payer), { payers: options.payers });
    if (!taken.ok) return { ok: false, invalid: formatProblems(renamed(taken.problems)) };
    inquiries.push({
      // One millisecond apart: id order is the order the payers were asked (coverages rank by it).
      id: uuidv7(created + index),
      tradingPartnerServiceId: taken.request.tradingPartnerServiceId,
      request: taken.request,
      requestCorrections: taken.corrections.length ? taken.corrections : null,
    });
  }
  const id = uuidv7(created);
  const limit = options.maxInquiriesPerDay;
  const inserted = await insertDiscoveryWithInquiries(db, { id, organizationId, dailyCap: limit }, inquiries);
  if (!inserted.ok) {
    return { ok: false, overCap: { askedToday: inserted.askedToday, asking: inquiries.length, limit } };
  }
  await options.wake();
  return { ok: true, accepted: { id, status: 'IN_PROGRESS' } };
}

/** The check body of one inquiry: a submit body whose subscriber has no member id. */
function inquiryBody(request: DiscoveryRequest, payer: string): unknown {
  const { state: _state, postalCode: _postalCode, ...subscriber } = request.patient;
  return {
    tradingPartnerServiceId: payer,
    provider: request.provider,
    subscriber,
    ...(request.dateOfService ? { encounter: { dateOfService: request.dateOfService } } : {}),
  };
}

/** The payers to ask (canonical ids, each once, in order), or why there are none. */
async function candidatePayers(
  db: Db,
  organizationId: string,
  request: DiscoveryRequest,
  directory: DiscoveryPayers,
): Promise<string[] | string> {
  if (request.payers) return namedPayers(request.payers, directory, 'payers');
  const listed = (await findDiscoveryPayers(db, organizationId))?.discoveryPayers;
  if (listed?.length) {
    // The organization's list was checked when it was saved; a payer since removed from the directory,
    // or no longer searching, is left out rather than failing every discovery.
    const usable = listed.filter((id) => directory.resolvePayer(id)?.demographicSearch === true);
    if (usable.length) return unique(usable.map((id) => directory.resolvePayer(id)!.tradingPartnerServiceId));
  }
  const state = request.patient.state;
  const searching = directory.entries
    .filter((p) => p.demographicSearch === true && p.eligibility !== false && p.enrollment !== 'required')
    .filter((p) => !state || !p.states?.length || p.states.includes(state))
    .map((p) => p.tradingPartnerServiceId);
  if (!searching.length) return 'Invalid request: no payer of the directory takes demographic searches.';
  return searching.slice(0, MAX_DISCOVERY_PAYERS);
}

/** Payer ids a person named (the request, the organization's list): each known and searching. */
export function namedPayers(
  ids: readonly string[],
  directory: DiscoveryPayers,
  field: string,
): string[] | string {
  const problems: string[] = [];
  const canonical: string[] = [];
  ids.forEach((id, i) => {
    const payer = directory.resolvePayer(id);
    if (!payer) problems.push(`${field}[${i}] is not a payer of the directory (GET /api/payers lists them)`);
    else if (payer.demographicSearch !== true)
      problems.push(`${field}[${i}] (${payer.tradingPartnerServiceId}) does not take demographic searches`);
    else canonical.push(payer.tradingPartnerServiceId);
  });
  if (problems.length) return `Invalid request: ${problems.slice(0, 5).join('; ')}.`;
  return unique(canonical);
}

const unique = (ids: string[]) => [...new Set(ids)];
