/**
 * The HL loop tree of one 271 transaction (005010X279A1 and 004010X092A1): 2000A/2100A information
 * source, 2000B/2100B receiver, 2000C/2100C subscriber, 2000D/2100D dependent, 2110C/D EB loops and their
 * 2120C/D LS/LE related entities. Loops hold segment indices into the tokens, not strings.
 *
 * Messy files are recovered, never guessed across people: an HL with an empty HL01 or a dangling HL02 is
 * placed by its level; an HL with no usable HL03 takes its level from the NM1 that follows; a 271 without
 * HL segments gets its loops from the NM1 entity codes; segments the guide does not allow where they
 * stand are kept aside (`ignored`) and reported, never attached to a person.
 */
import type { TransactionSpan } from './envelope.ts';
import { safeId } from './envelope.ts';
import { type IssueLog, warning } from './issues.ts';
import { breaksRules } from './snip-rules.ts';
import type { X12Tokens } from './tokenizer.ts';

export type Level = 'A' | 'B' | 'C' | 'D';

export interface X12Loop {
  /** `HEADER`, `2000A`…`2000D`, `2100A`…`2100D`, `2110C`/`2110D`, `2120C`/`2120D`. */
  id: string;
  /** Segment indices that belong to this loop (child loops hold their own). */
  segments: number[];
  children: X12Loop[];
  /** Segments found here that the guide does not allow; reported and not read. */
  ignored: number[];
}

export interface AaaRef {
  index: number;
  /** Loop id the AAA sits in (`header` before the first HL). */
  loop: string;
}

/** A 2000 loop: one HL level with its 2100 name loop and 2110 benefit loops. */
export interface PartyLoop extends X12Loop {
  /** undefined when the HL's level could not be told: such a loop attaches nothing to anyone. */
  level: Level | undefined;
  parent: PartyLoop | undefined;
  name: X12Loop | undefined;
  benefits: X12Loop[];
  aaa: AaaRef[];
  traces: number[];
  /** How many 2000 loops the tree placed under this one (HL04 says whether there are any). */
  childLoops: number;
}

export interface Transaction271Tree {
  header: X12Loop;
  headerAaa: AaaRef[];
  /** Every 2000 loop in document order. */
  parties: PartyLoop[];
  /** Segments that break a SNIP rule (snip-rules.ts), in order: snip.ts `validate271` says what is wrong. */
  breaking: number[];
}

/** The latest loop of each level (fixed shape: never `delete`d). */
type Latest = Record<Level, PartyLoop | undefined>;

const LEVEL_BY_CODE: Record<string, Level> = { '20': 'A', '21': 'B', '22': 'C', '23': 'D' };
/**
 * Loop ids by level, so that no id string is made per loop (a batch opens several loops per transaction);
 * the template stays as the fallback, so an id reads exactly as it always did.
 */
const PARTY_IDS: Record<Level, string> = { A: '2000A', B: '2000B', C: '2000C', D: '2000D' };
const NAME_IDS: Record<Level, string> = { A: '2100A', B: '2100B', C: '2100C', D: '2100D' };
const RELATED_IDS: Readonly<Record<string, string>> = {
  '2110C': '2120C',
  '2110D': '2120D',
  '2110?': '2120?',
};
const PARENT: Record<Level, Level | undefined> = { A: undefined, B: 'A', C: 'B', D: 'C' };
const DEEPER: Record<Level, Level[]> = { A: ['B', 'C', 'D'], B: ['C', 'D'], C: ['D'], D: [] };
/** 2100 segments (any level) besides NM1 and AAA. */
const NAME_SEGMENTS = new Set(['N3', 'N4', 'PER', 'REF', 'PRV', 'DMG', 'INS', 'HI', 'DTP', 'MPI']);
const BENEFIT_SEGMENTS = new Set(['HSD', 'REF', 'DTP', 'AAA', 'MSG', 'III']);
const RELATED_SEGMENTS = new Set(['NM1', 'N3', 'N4', 'PER', 'PRV']);
const SOURCE_ENTITIES = new Set(['PR', '2B', '36', 'GP', 'P5']);

function loop(id: string, first?: number): X12Loop {
  return { id, segments: first === undefined ? [] : [first], children: [], ignored: [] };
}

export function buildTree(t: X12Tokens, span: TransactionSpan, log: IssueLog): Transaction271Tree {
  return new TreeBuilder(t, span, log).build();
}

/** The walk over one transaction's segments; the state is the loop each kind of segment attaches to. */
class TreeBuilder {
  private readonly header: X12Loop;
  private readonly headerAaa: AaaRef[] = [];
  private readonly parties: PartyLoop[] = [];
  private readonly byHlId = new Map<string, PartyLoop>();
  private readonly last: Latest = { A: undefined, B: undefined, C: undefined, D: undefined };
  private party: PartyLoop | undefined;
  private name: X12Loop | undefined;
  private benefit: X12Loop | undefined;
  private related: X12Loop | undefined;
  private pendingTraces: number[] = [];
  private readonly breaking: number[] = [];
  private hasHl = false;

  constructor(
    private readonly t: X12Tokens,
    private readonly span: TransactionSpan,
    private readonly log: IssueLog,
  ) {
    this.header = loop('HEADER', span.start);
  }

  build(): Transaction271Tree {
    const { t, log, span, header } = this;
    const end = span.end;
    for (let i = span.start + 1; i < end && !this.hasHl; i++) this.hasHl = t.segmentId(i) === 'HL';
    const hasHl = this.hasHl;
    if (!hasHl && end > span.start + 1)
      log.add(warning('X12_NO_HL', undefined, t.position(span.start), 'ST'));

    for (let i = span.start + 1; i < end; i++) {
      const id = t.segmentId(i);
      // SNIP validation's fast path rides on this walk, so no second walk reads every segment again.
      if (breaksRules(t, i, id)) this.breaking.push(i);
      const related = this.related;
      if (related) {
        if (id === 'LE') {
          related.segments.push(i);
          this.related = undefined;
          continue;
        }
        if (RELATED_SEGMENTS.has(id)) {
          related.segments.push(i);
          continue;
        }
        log.add(warning('X12_LS_NOT_CLOSED', undefined, t.position(i), safeId(id)));
        this.related = undefined;
      }
      // Without HL segments an NM1 may start the next person, so it closes the EB loop.
      const benefit = this.benefit;
      if (benefit && id !== 'EB' && id !== 'HL' && (hasHl || id !== 'NM1')) {
        this.benefitSegment(i, id, benefit);
        continue;
      }
      const party = this.party;
      switch (id) {
        case 'HL': {
          const level = this.hlLevel(i, end);
          const hlId = t.value(i, 1);
          if (!hlId) log.add(warning('X12_HL_EMPTY_ID', undefined, t.position(i), 'HL'));
          const parent = level ? this.hlParent(i, level) : undefined;
          const node = this.open(level, i, parent);
          if (hlId) this.byHlId.set(hlId, node);
          break;
        }
        case 'EB': {
          const p = party;
          if (!p || (p.level !== 'C' && p.level !== 'D')) {
            log.add(warning('X12_EB_OUTSIDE_PATIENT', undefined, t.position(i), 'EB'));
            // A detached loop swallows the EB's HSD/MSG/... so they are not misread either.
            this.benefit = loop('2110?', i);
            (p ?? header).ignored.push(i);
            break;
          }
          const owner = this.name ?? this.nameLoop(p);
          const created = loop(p.level === 'C' ? '2110C' : '2110D', i);
          owner.children.push(created);
          p.benefits.push(created);
          this.benefit = created;
          break;
        }
        case 'NM1': {
          if (!hasHl) {
            const inferred = inferFromName(t, i, this.last);
            if (!inferred) {
              this.ignore(i, this.name ?? party ?? header, id);
              break;
            }
            const p = this.open(inferred, undefined, this.last[PARENT[inferred]!]);
            if (inferred === 'C' || inferred === 'D') p.traces.push(...this.pendingTraces);
            this.pendingTraces = [];
            this.nameLoop(p, i);
          } else if (!party) this.ignore(i, header, id);
          else if (!this.name) this.nameLoop(party, i);
          else this.ignore(i, this.name, id);
          break;
        }
        case 'TRN':
          if (party?.level === 'C' || party?.level === 'D') {
            party.segments.push(i);
            party.traces.push(i);
          } else if (!hasHl) this.pendingTraces.push(i);
          else this.ignore(i, party ?? header, id);
          break;
        case 'AAA':
          if (!party) {
            header.segments.push(i);
            this.headerAaa.push({ index: i, loop: 'header' });
            log.add(warning('X12_AAA_OUTSIDE_LOOP', undefined, t.position(i), 'AAA'));
          } else if (this.name) {
            this.name.segments.push(i);
            party.aaa.push({ index: i, loop: this.name.id });
          } else {
            party.segments.push(i);
            party.aaa.push({ index: i, loop: party.id });
          }
          break;
        case 'BHT':
          if (party) this.ignore(i, party, id);
          else header.segments.push(i);
          break;
        default:
          if (party && NAME_SEGMENTS.has(id)) (this.name ?? this.nameLoop(party)).segments.push(i);
          else this.ignore(i, this.name ?? party ?? header, id);
      }
    }
    if (this.related) log.add(warning('X12_LS_NOT_CLOSED', undefined, t.position(end - 1)));
    return { header, headerAaa: this.headerAaa, parties: this.parties, breaking: this.breaking };
  }

  /** A segment after an EB, before the next EB or HL: the 2110's own, an LS/LE pair, or not allowed. */
  private benefitSegment(i: number, id: string, benefit: X12Loop): void {
    if (id === 'LS') {
      this.related = loop(RELATED_IDS[benefit.id] ?? benefit.id.replace('2110', '2120'), i);
      benefit.children.push(this.related);
    } else if (id === 'LE') {
      this.log.add(warning('X12_LE_WITHOUT_LS', undefined, this.t.position(i), 'LE'));
      benefit.ignored.push(i);
    } else if (BENEFIT_SEGMENTS.has(id)) {
      benefit.segments.push(i);
      const party = this.party;
      if (id === 'AAA' && party && party.benefits.at(-1) === benefit)
        party.aaa.push({ index: i, loop: benefit.id });
    } else {
      this.ignore(i, benefit, id);
    }
  }

  private open(
    level: Level | undefined,
    first: number | undefined,
    parent: PartyLoop | undefined,
  ): PartyLoop {
    const node: PartyLoop = {
      id: level ? (PARTY_IDS[level] ?? `2000${level}`) : '2000?',
      segments: first === undefined ? [] : [first],
      children: [],
      ignored: [],
      level,
      parent,
      name: undefined,
      benefits: [],
      aaa: [],
      traces: [],
      childLoops: 0,
    };
    this.parties.push(node);
    if (parent) {
      parent.children.push(node);
      parent.childLoops++;
    }
    if (level) {
      this.last[level] = node;
      for (const deeper of DEEPER[level]) this.last[deeper] = undefined;
    }
    this.party = node;
    this.name = undefined;
    this.benefit = undefined;
    if (this.related)
      this.log.add(
        warning('X12_LS_NOT_CLOSED', undefined, first === undefined ? undefined : this.t.position(first)),
      );
    this.related = undefined;
    return node;
  }

  /** HL03 as a level; when unusable, the level of the NM1 that follows (or one below HL02's). */
  private hlLevel(i: number, end: number): Level | undefined {
    const { t, byHlId, log } = this;
    // HL03 read as a code first: the usual 20–23 are interned strings (no string made per HL); anything
    // else is looked up as before.
    const code = t.code(i, 3);
    const level =
      code === '22'
        ? 'C'
        : code === '23'
          ? 'D'
          : code === '20'
            ? 'A'
            : code === '21'
              ? 'B'
              : LEVEL_BY_CODE[t.value(i, 3)];
    if (level) return level;
    let inferred: Level | undefined;
    for (let j = i + 1; j < end && j < i + 8; j++) {
      const id = t.segmentId(j);
      if (id === 'HL') break;
      if (id !== 'NM1') continue;
      const entity = t.upperValue(j, 1);
      inferred =
        entity === 'IL'
          ? 'C'
          : entity === '03'
            ? 'D'
            : entity === '1P' || entity === 'FA' || entity === '80'
              ? 'B'
              : SOURCE_ENTITIES.has(entity)
                ? 'A'
                : undefined;
      break;
    }
    if (!inferred) {
      const parentLevel = byHlId.get(t.value(i, 2))?.level;
      inferred =
        parentLevel === 'A' ? 'B' : parentLevel === 'B' ? 'C' : parentLevel === 'C' ? 'D' : undefined;
    }
    log.add(
      warning(
        'X12_HL_LEVEL_INFERRED',
        inferred ? `Read as level ${inferred}.` : 'Its segments are not attributed to anyone.',
        t.position(i),
        'HL',
      ),
    );
    return inferred;
  }

  /** HL02's loop when it is of the level above; otherwise the latest loop of that level. */
  private hlParent(i: number, level: Level): PartyLoop | undefined {
    const { t, byHlId, last, log } = this;
    const expected = PARENT[level];
    if (!expected) return undefined;
    const named = byHlId.get(t.value(i, 2));
    if (named?.level === expected) return named;
    log.add(warning('X12_HL_PARENT', `Placed under the latest level ${expected} loop.`, t.position(i), 'HL'));
    return last[expected];
  }

  private ignore(i: number, where: X12Loop, id: string): void {
    where.ignored.push(i);
    const at = this.t.position(i);
    if (safeId(id) !== id) this.log.add(warning('X12_BAD_SEGMENT_ID', `In loop ${where.id}.`, at));
    else this.log.add(warning('X12_UNEXPECTED_SEGMENT', `${id} in loop ${where.id}.`, at, id));
  }

  private nameLoop(p: PartyLoop, first?: number): X12Loop {
    const created = loop(p.level ? (NAME_IDS[p.level] ?? `2100${p.level}`) : '2100?', first);
    p.name = created;
    p.children.push(created);
    this.name = created;
    return created;
  }
}

/** Without HL segments: IL is the subscriber, 03 a dependent, the first other NM1 the source, the next the receiver. */
function inferFromName(t: X12Tokens, i: number, last: Latest): Level | undefined {
  const entity = t.upperValue(i, 1);
  if (entity === 'IL') return 'C';
  if (entity === '03') return last.C ? 'D' : undefined;
  if (!last.A) return 'A';
  if (!last.B && !last.C) return 'B';
  return undefined;
}
