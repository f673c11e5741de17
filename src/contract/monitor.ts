/**
 * Monitors (issue 17 section 3): recurring checks of one patient, every N days or before each appointment.
 * One schema is the documentation, the TypeScript type and the OpenAPI description; the semantic rules
 * (real dates, not in the past, exactly one schedule) are checked in src/monitors/request.ts, with
 * the same messages as a single submit for the check fields.
 */
import Type, { type Static } from 'typebox';
import { EligibilityCheckRequest } from './check-request.ts';
import { CheckStatus, RequestCorrection, VerdictStatus } from './check-response.ts';

export const MAX_MONITOR_EVERY_DAYS = 365;
export const MAX_MONITOR_DATES = 100;

const check = EligibilityCheckRequest.properties;

/** The service types of each run; the date of service comes from the schedule, never from the body. */
export const MonitorEncounter = Type.Object(
  { serviceTypeCodes: check.encounter.properties.serviceTypeCodes },
  { $id: 'MonitorEncounter', additionalProperties: false },
);

export const MonitorRequest = Type.Object(
  {
    tradingPartnerServiceId: check.tradingPartnerServiceId,
    provider: check.provider,
    subscriber: check.subscriber,
    encounter: Type.Optional(MonitorEncounter),
    every: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_MONITOR_EVERY_DAYS,
        description: 'Check every this many days, the first time at once. Give `every` or `dates`.',
      }),
    ),
    dates: Type.Optional(
      Type.Array(Type.String({ pattern: '^[0-9]{4}-?[0-9]{2}-?[0-9]{2}$' }), {
        minItems: 1,
        maxItems: MAX_MONITOR_DATES,
        description:
          "Appointment dates (YYYYMMDD or YYYY-MM-DD, today or later): each is checked once, from 00:00 the day before in the organization's time zone (set in the portal; UTC when unset), with that date of service. Give `every` or `dates`.",
      }),
    ),
  },
  { $id: 'MonitorRequest', additionalProperties: false },
);
export type MonitorRequest = Static<typeof MonitorRequest>;

export const MonitorStatus = Type.Union(
  [Type.Literal('active'), Type.Literal('paused'), Type.Literal('completed')],
  {
    $id: 'MonitorStatus',
    description: '`completed`: a `dates` monitor whose last appointment has been checked.',
  },
);
export type MonitorStatus = Static<typeof MonitorStatus>;

export const Monitor = Type.Object(
  {
    id: Type.String({ description: '`mon_` and a UUIDv7.' }),
    status: MonitorStatus,
    tradingPartnerServiceId: Type.String(),
    provider: check.provider,
    subscriber: check.subscriber,
    encounter: Type.Optional(MonitorEncounter),
    every: Type.Union([Type.Integer(), Type.Null()], { description: 'Days between runs; null: `dates`.' }),
    dates: Type.Union([Type.Array(Type.String()), Type.Null()], {
      description: 'Appointment dates (YYYYMMDD, ascending); null: `every`.',
    }),
    nextRunAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the next run is due (a paused monitor keeps it); null once completed.',
    }),
    lastRunAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    runCount: Type.Integer({ description: 'Checks this monitor has created.' }),
    requestCorrections: Type.Optional(
      Type.Array(RequestCorrection, {
        description:
          "Present only when the check fields were repaired at creation (as a submit repairs them): what was changed. Each run's check repeats it, with a `REQUEST_CORRECTED` warning.",
      }),
    ),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'Monitor' },
);
export type Monitor = Static<typeof Monitor>;

export const MonitorRun = Type.Object(
  {
    checkId: Type.String({ description: 'Readable alone at `GET /api/eligibility/{id}/status`.' }),
    status: CheckStatus,
    verdict: Type.Union([VerdictStatus, Type.Null()], { description: 'null while IN_PROGRESS.' }),
    dateOfService: Type.Union([Type.String(), Type.Null()], {
      description: 'The appointment date checked (`dates` monitors); null: the day of the run.',
    }),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'MonitorRun' },
);
export type MonitorRun = Static<typeof MonitorRun>;

export const MonitorDetail = Type.Intersect(
  [Monitor, Type.Object({ runs: Type.Array(MonitorRun, { description: 'The latest runs, newest first.' }) })],
  { $id: 'MonitorDetail' },
);
export type MonitorDetail = Static<typeof MonitorDetail>;

export const MonitorPage = Type.Object(
  {
    monitors: Type.Array(Monitor),
    next: Type.Union([Type.String(), Type.Null()], {
      description: 'Cursor of the next page (`?after=`), null on the last page.',
    }),
  },
  { $id: 'MonitorPage' },
);
export type MonitorPage = Static<typeof MonitorPage>;

export const MonitorUpdate = Type.Object(
  { status: Type.Union([Type.Literal('active'), Type.Literal('paused')]) },
  { $id: 'MonitorUpdate', additionalProperties: false },
);
export type MonitorUpdate = Static<typeof MonitorUpdate>;
