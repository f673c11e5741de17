/**
 * A clearinghouse-sized payer list, the same on every run: Blue Cross Blue Shield plans by state, Medicaid by
 * state and its managed-care plans, Medicare (MACs and Medicare Advantage), the national carriers and their
 * variants, regional plans, TPAs, union trust funds, workers' compensation, auto, dental and vision, and
 * employer plans to fill up. Ids look like clearinghouse payer ids (five digits, or letters and digits).
 * Tests and bench/payer-search.ts rank queries against it; the named payers below are what they look for.
 */
import { US_STATES } from '../../src/payers/us-states.ts';

export interface GeneratedPayer {
  id: string;
  name: string;
  aliases: string[];
  states?: string[];
}

/** Payers the search tests name, with fixed ids. */
export const KNOWN: readonly GeneratedPayer[] = [
  { id: '60054', name: 'Aetna', aliases: ['AETNA'] },
  { id: '62308', name: 'Cigna', aliases: ['CIGNA', 'Cigna Health and Life Insurance Company'] },
  { id: '87726', name: 'UnitedHealthcare', aliases: ['UHC', 'United Health Care'] },
  { id: '61101', name: 'Humana', aliases: ['HUMANA'] },
  { id: '39026', name: 'UMR', aliases: ['UMR Wausau'] },
  { id: '36273', name: 'AARP Medicare Supplement Plans (UnitedHealthcare)', aliases: [] },
  { id: '84980', name: 'Blue Cross Blue Shield of Texas', aliases: ['BCBSTX', 'G84980'], states: ['TX'] },
  { id: '00621', name: 'Blue Cross Blue Shield of Illinois', aliases: ['BCBSIL'], states: ['IL'] },
  {
    id: '00590',
    name: 'Florida Blue',
    aliases: ['Blue Cross Blue Shield of Florida', 'BCBSFL'],
    states: ['FL'],
  },
  { id: '00390', name: 'BlueCross BlueShield of Tennessee', aliases: ['BCBST'], states: ['TN'] },
  { id: '00950', name: 'Blue Cross and Blue Shield of North Carolina', aliases: ['BCBSNC'], states: ['NC'] },
  { id: '00710', name: 'Blue Cross Blue Shield of Michigan', aliases: ['BCBSM'], states: ['MI'] },
  { id: '00060', name: 'Blue Cross Blue Shield of Massachusetts', aliases: ['BCBSMA'], states: ['MA'] },
  { id: '00150', name: 'Anthem Blue Cross (California)', aliases: ['Anthem CA'], states: ['CA'] },
  { id: '00940', name: 'Blue Shield of California', aliases: ['BSC'], states: ['CA'] },
  { id: '00803', name: 'Empire BlueCross BlueShield', aliases: ['Empire'], states: ['NY'] },
  { id: '00801', name: 'Excellus BlueCross BlueShield', aliases: [], states: ['NY'] },
  {
    id: '22099',
    name: 'Horizon Blue Cross Blue Shield of New Jersey',
    aliases: ['Horizon BCBSNJ'],
    states: ['NJ'],
  },
  { id: '54704', name: 'Independence Blue Cross', aliases: ['IBC'], states: ['PA'] },
  { id: '54771', name: 'Highmark Blue Cross Blue Shield', aliases: ['Highmark'], states: ['PA', 'DE', 'WV'] },
  { id: '00580', name: 'CareFirst BlueCross BlueShield', aliases: ['CareFirst'], states: ['MD', 'DC', 'VA'] },
  {
    id: '00880',
    name: 'Wellmark Blue Cross and Blue Shield of Iowa',
    aliases: ['Wellmark'],
    states: ['IA', 'SD'],
  },
  { id: '00932', name: 'Premera Blue Cross', aliases: ['Premera'], states: ['WA', 'AK'] },
  { id: '00851', name: 'Regence BlueCross BlueShield of Oregon', aliases: ['Regence OR'], states: ['OR'] },
  { id: '00620', name: 'Blue Cross of Idaho', aliases: [], states: ['ID'] },
  {
    id: '00451',
    name: 'Hawaii Medical Service Association (Blue Cross Blue Shield of Hawaii)',
    aliases: ['HMSA'],
    states: ['HI'],
  },
  { id: '00550', name: 'BCBS Federal Employee Program', aliases: ['FEP', 'Blue Cross Federal'] },
  {
    id: 'SKTX0',
    name: 'Texas Medicaid & Healthcare Partnership (TMHP)',
    aliases: ['TXMCD', 'TMHP'],
    states: ['TX'],
  },
  { id: 'SKCA0', name: 'Medi-Cal', aliases: ['California Medicaid', 'CAMCD'], states: ['CA'] },
  { id: 'SKNY0', name: 'New York Medicaid', aliases: ['NYMCD', 'eMedNY'], states: ['NY'] },
  { id: 'SKAZ0', name: 'AHCCCS (Arizona Medicaid)', aliases: ['AZMCD'], states: ['AZ'] },
  { id: 'SKMA0', name: 'MassHealth', aliases: ['Massachusetts Medicaid', 'MAMCD'], states: ['MA'] },
  { id: 'SKTN0', name: 'TennCare', aliases: ['Tennessee Medicaid', 'TNMCD'], states: ['TN'] },
  { id: 'SKFL0', name: 'Florida Medicaid', aliases: ['FLMCD'], states: ['FL'] },
  { id: '68069', name: 'Superior HealthPlan', aliases: ['Superior Texas Medicaid'], states: ['TX'] },
  { id: '59064', name: 'Sunshine Health', aliases: [], states: ['FL'] },
  { id: '95378', name: 'L.A. Care Health Plan', aliases: ['LA Care'], states: ['CA'] },
  { id: '11334', name: 'Fidelis Care', aliases: [], states: ['NY'] },
  { id: '80141', name: 'Healthfirst', aliases: [], states: ['NY'] },
  { id: '77003', name: 'Community Health Choice', aliases: [], states: ['TX'] },
  { id: '87726CP', name: 'UnitedHealthcare Community Plan of Texas', aliases: [], states: ['TX'] },
  { id: '128TX', name: 'Aetna Better Health of Texas', aliases: [], states: ['TX'] },
  { id: 'MOLTX', name: 'Molina Healthcare of Texas', aliases: [], states: ['TX'] },
  { id: '20554', name: 'Molina Healthcare of California', aliases: [], states: ['CA'] },
  { id: '26375', name: 'Amerigroup Texas', aliases: [], states: ['TX'] },
  { id: '14163', name: 'WellCare of Georgia', aliases: [], states: ['GA'] },
  { id: '31114', name: 'CareSource Ohio', aliases: [], states: ['OH'] },
  { id: '04412', name: 'Medicare Part B Texas', aliases: ['Novitas Solutions TX Part B'], states: ['TX'] },
  { id: '04411', name: 'Medicare Part A Texas', aliases: ['Novitas Solutions TX Part A'], states: ['TX'] },
  { id: '09102', name: 'Medicare Part B Florida', aliases: ['First Coast Service Options'], states: ['FL'] },
  { id: 'HUMMA', name: 'Humana Medicare Advantage', aliases: ['Humana Gold Plus HMO'] },
  { id: 'AETMA', name: 'Aetna Medicare Advantage', aliases: [] },
  { id: 'UHCMA', name: 'UnitedHealthcare Medicare Advantage', aliases: ['AARP Medicare Advantage'] },
  { id: 'DEVOT', name: 'Devoted Health', aliases: [] },
  { id: 'SCAN1', name: 'SCAN Health Plan', aliases: [], states: ['CA'] },
  { id: 'CLOVR', name: 'Clover Health', aliases: [] },
  { id: '94135', name: 'Kaiser Permanente of Northern California', aliases: ['KP NorCal'], states: ['CA'] },
  { id: '94134', name: 'Kaiser Permanente of Southern California', aliases: ['KP SoCal'], states: ['CA'] },
  { id: '04271', name: 'Harvard Pilgrim Health Care', aliases: ['HPHC'], states: ['MA', 'NH', 'ME'] },
  { id: '34196', name: 'Medical Mutual of Ohio', aliases: ['MMO'], states: ['OH'] },
  { id: '13551', name: 'EmblemHealth', aliases: ['GHI', 'HIP'], states: ['NY'] },
  { id: 'OSCAR', name: 'Oscar Health', aliases: [] },
  { id: '99726', name: 'TRICARE West Region', aliases: ['TRICARE West'] },
  { id: 'TREST', name: 'TRICARE East Region', aliases: ['TRICARE East'] },
  { id: 'TDDIR', name: 'TRICARE For Life', aliases: ['TFL'] },
  { id: '84146', name: 'CHAMPVA', aliases: ['VA CHAMPVA'] },
  { id: '88027', name: 'Meritain Health', aliases: [] },
  { id: '75068', name: 'Allied Benefit Systems', aliases: [] },
  { id: '25133', name: 'HealthSCOPE Benefits', aliases: [] },
  { id: '37602', name: 'GEHA', aliases: ['Government Employees Health Association'] },
  {
    id: '13407',
    name: 'Teamsters Western Region Health and Welfare Trust Fund',
    aliases: [],
    states: ['CA', 'WA'],
  },
  {
    id: '94320',
    name: 'Carpenters Health and Welfare Trust Fund for California',
    aliases: [],
    states: ['CA'],
  },
  { id: 'IBEW46', name: 'IBEW Local 46 Health Fund', aliases: [], states: ['WA'] },
  { id: 'SCIF1', name: 'State Compensation Insurance Fund', aliases: ['SCIF'], states: ['CA'] },
  {
    id: 'TXMUT',
    name: "Texas Mutual Insurance Company (Workers' Compensation)",
    aliases: [],
    states: ['TX'],
  },
  { id: 'LMWC1', name: "Liberty Mutual Workers' Compensation", aliases: [] },
  { id: 'GALBA', name: 'Gallagher Bassett Services', aliases: [] },
  { id: 'SEDGW', name: 'Sedgwick Claims Management Services', aliases: ['Sedgwick CMS'] },
  { id: 'GEICO', name: 'GEICO Personal Injury Protection', aliases: [] },
  { id: 'SFAUT', name: 'State Farm Auto Medical Payments', aliases: [] },
  { id: 'DDCA1', name: 'Delta Dental of California', aliases: [], states: ['CA'] },
  { id: 'VSP01', name: 'VSP Vision Care', aliases: ['VSP'] },
  { id: 'EYEMD', name: 'EyeMed Vision Care', aliases: [] },
  { id: '62308BH', name: 'Cigna Behavioral Health (Evernorth)', aliases: [] },
  { id: '63092', name: 'Cigna HealthSpring', aliases: ['HealthSpring'] },
  { id: '68862', name: 'Aetna Student Health', aliases: [] },
  { id: '87726SS', name: 'UnitedHealthcare Shared Services', aliases: [] },
  { id: '74227', name: 'UnitedHealthcare Student Resources', aliases: [] },
];

const BRANDS_BY_STATE = [
  'Aetna Better Health of',
  'Molina Healthcare of',
  'UnitedHealthcare Community Plan of',
  'Amerigroup',
  'WellCare of',
  'CareSource',
  'Anthem Blue Cross Blue Shield',
  'Humana Health Plan of',
  'Cigna HealthCare of',
  'Ambetter from Centene',
  'Delta Dental of',
  'Blue Cross Blue Shield of',
  'Medicare Part A',
  'Medicare Part B',
  'Medicaid',
];

const ANTHEM_STATES = ['CO', 'CT', 'GA', 'IN', 'KY', 'ME', 'MO', 'NV', 'NH', 'NY', 'OH', 'VA', 'WI'];

const TRADES = [
  'Carpenters',
  'Laborers',
  'Operating Engineers',
  'Teamsters',
  'IBEW',
  'UFCW',
  'Plumbers and Pipefitters',
  'Sheet Metal Workers',
  'Ironworkers',
  'Painters',
  'Bricklayers',
  'Electrical Workers',
  'Boilermakers',
  'Roofers',
  'SEIU',
  'Hotel Employees',
  'Bakery Workers',
  'Machinists',
];
const PLACES = [
  'American',
  'Pacific',
  'Midwest',
  'Great Lakes',
  'Summit',
  'Keystone',
  'Coastal',
  'Heartland',
  'Liberty',
  'Pioneer',
  'Cornerstone',
  'Evergreen',
  'Gulf Coast',
  'Rocky Mountain',
  'Tri-State',
  'Capital',
  'Sierra',
  'Prairie',
  'Atlantic',
  'Southern',
  'Northern',
  'Frontier',
  'Meridian',
  'Beacon',
  'Harbor',
  'Crescent',
  'Valley',
  'Lakeshore',
];
const TPA_SUFFIXES = [
  'Benefit Administrators',
  'Health Services',
  'Plan Administrators',
  'Benefit Services',
  'Claims Administration',
  'Administrative Services',
  'Health Benefits Trust',
  'Employee Benefits',
  'Health Plan',
  'Medical Group',
];
const WC_CARRIERS = [
  'Travelers',
  'The Hartford',
  'Zenith',
  'Employers Insurance',
  'AmTrust',
  'Berkshire Hathaway GUARD',
  'ICW Group',
  'Republic Indemnity',
  'Accident Fund',
  'Chubb',
];
const AUTO_CARRIERS = [
  'Progressive',
  'Allstate',
  'Farmers',
  'Nationwide',
  'USAA',
  'Erie',
  'Mercury',
  'Kemper',
];

/** A small seeded generator (mulberry32): the same list on every run and every machine. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` payers (the named ones included), shuffled the same way every time. */
export function payerList(count = 5000, seed = 25): GeneratedPayer[] {
  const rand = random(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)]!;
  const taken = new Set<string>();
  const names = new Set<string>();
  const out: GeneratedPayer[] = [];
  const add = (p: GeneratedPayer) => {
    if (taken.has(p.id) || names.has(p.name.toLowerCase())) return;
    for (const key of [p.id, ...p.aliases]) taken.add(key);
    names.add(p.name.toLowerCase());
    out.push(p);
  };
  const numericId = () => {
    for (;;) {
      const id = String(10000 + Math.floor(rand() * 89999));
      if (!taken.has(id)) return id;
    }
  };
  const letterId = (prefix: string) => {
    // Three digits while they last, then four, and so on: a prefix never runs out.
    for (let tries = 0; ; tries++) {
      const digits = 3 + Math.floor(tries / 20);
      const id = `${prefix}${Math.floor(rand() * 9 * 10 ** (digits - 1) + 10 ** (digits - 1))}`;
      if (!taken.has(id)) return id;
    }
  };
  for (const p of KNOWN) add(p);
  // A state whose Blue plan is named above has no second, generated one.
  const namedBlue = new Set(KNOWN.filter((p) => /blue/i.test(p.name)).flatMap((p) => p.states ?? []));
  for (const brand of BRANDS_BY_STATE) {
    for (const s of US_STATES.slice(0, 51)) {
      if (brand.includes('Blue') && namedBlue.has(s.code)) continue;
      if (brand.startsWith('Anthem') && !ANTHEM_STATES.includes(s.code)) continue;
      const name = brand.startsWith('Medicare')
        ? `${brand} ${s.name}`
        : brand === 'Medicaid'
          ? `${s.name} Medicaid`
          : `${brand} ${s.name}`;
      const alias = brand === 'Medicaid' ? [`${s.code}MCD`] : [];
      add({
        id: brand === 'Medicaid' ? `SK${s.code}0` : numericId(),
        name,
        aliases: alias,
        states: [s.code],
      });
    }
  }
  for (const s of US_STATES.slice(0, 51)) {
    const blue = namedBlue.has(s.code) ? 'Blue Cross Blue Shield' : 'Blue Cross Blue Shield of';
    add({ id: numericId(), name: `${blue} ${s.name} Medicare Advantage`, aliases: [], states: [s.code] });
    add({
      id: letterId('WC'),
      name: `${pick(WC_CARRIERS)} Workers' Compensation ${s.name}`,
      aliases: [],
      states: [s.code],
    });
    add({ id: letterId('AU'), name: `${pick(AUTO_CARRIERS)} Auto ${s.name}`, aliases: [], states: [s.code] });
    add({ id: numericId(), name: `${s.name} State Employees Health Plan`, aliases: [], states: [s.code] });
  }
  const kinds = [
    () => {
      const s = pick(US_STATES.slice(0, 51));
      const local = Math.floor(rand() * 900 + 1);
      return {
        id: numericId(),
        name: `${pick(TRADES)} Local ${local} Health and Welfare Fund`,
        aliases: [],
        states: [s.code],
      };
    },
    () => {
      const s = pick(US_STATES.slice(0, 51));
      return {
        id: numericId(),
        name: `${pick(TRADES)} Health & Welfare Trust Fund of ${s.name}`,
        aliases: [],
        states: [s.code],
      };
    },
    () => ({ id: letterId('TP'), name: `${pick(PLACES)} ${pick(TPA_SUFFIXES)}`, aliases: [] }),
    () => {
      const s = pick(US_STATES.slice(0, 51));
      return {
        id: numericId(),
        name: `${pick(PLACES)} ${pick(TPA_SUFFIXES)} of ${s.name}`,
        aliases: [],
        states: [s.code],
      };
    },
    () => {
      const s = pick(US_STATES.slice(0, 51));
      return {
        id: letterId('WC'),
        name: `${pick(PLACES)} ${pick(['Mutual', 'Casualty', 'Indemnity'])} Workers Comp (${s.code})`,
        aliases: [],
        states: [s.code],
      };
    },
    () => {
      const s = pick(US_STATES.slice(0, 51));
      const city = `${pick(PLACES)} ${pick(['County', 'City', 'School District', 'Unified Schools'])}`;
      return {
        id: numericId(),
        name: `${city} Employee Benefit Plan ${s.code}`,
        aliases: [],
        states: [s.code],
      };
    },
  ];
  while (out.length < count) add(pick(kinds)());
  const list = out.slice(0, count);
  // Shuffled: ranking must not lean on the named payers coming first.
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [list[i], list[j]] = [list[j]!, list[i]!];
  }
  return list;
}
