/**
 * Interchange structure over the tokens: interchanges, functional groups and transactions, with the
 * envelope checks (SE01/GE01/IEA01 counts, ST02/SE02, GS06/GE02, ISA13/IEA02 control numbers). Real files
 * often carry a wrong SE01; every mismatch is a warning with its segment position, never a rejection.
 */
import type { IssueLog, X12IssueCode } from './issues.ts';
import { error, warning } from './issues.ts';
import type { X12Tokens } from './tokenizer.ts';

export interface TransactionSpan {
  /** ST01: 271, 999, 270, ... */
  type: string;
  controlNumber: string;
  /** ST03, else GS08, else from ISA12 (`00401` → 004010). */
  version: string;
  /** Segment index of ST. */
  start: number;
  /** Segment index of SE, or of the first segment after the body when SE is missing. */
  end: number;
}

export interface Envelope {
  transactions: TransactionSpan[];
  /** Segment indices of TA1 interchange acknowledgments. */
  ta1: number[];
}

/** Walks the envelope once; cost is one segment-id read per segment. */
export function readEnvelope(t: X12Tokens, log: IssueLog): Envelope {
  const transactions: TransactionSpan[] = [];
  const ta1: number[] = [];
  let isa = -1;
  let gs = -1;
  let groups = 0;
  let inGroup = 0;
  let st = -1;
  let version = '';
  let checkedGs = -1;
  const closeTransaction = (end: number) => {
    transactions.push({
      type: t.value(st, 1),
      controlNumber: t.value(st, 2),
      version: t.value(st, 3) || version,
      start: st,
      end,
    });
    st = -1;
  };
  const at = (i: number) => t.position(i);
  /** ISA, GS, ST, GE and IEA cannot stand inside a transaction: one still open ends here, without its SE. */
  const endOpenTransaction = (i: number, id: string) => {
    if (st < 0) return;
    log.add(warning('X12_MISSING_SE', undefined, at(i), id));
    closeTransaction(i);
  };
  /**
   * A trailer (SE, GE, IEA): element 1 against what was counted, element 2 against the control number in
   * element `control` of its header (when there is one).
   */
  const checkTrailer = (
    i: number,
    id: 'SE' | 'GE' | 'IEA',
    counted: number,
    header: number,
    control: number,
    codes: { count: X12IssueCode; control: X12IssueCode },
  ) => {
    const said = t.value(i, 1);
    if (Number(said) !== counted)
      log.add(warning(codes.count, `${id}01 says ${said || 'nothing'}; counted ${counted}.`, at(i), id));
    if (header >= 0 && t.value(i, 2) !== t.value(header, control))
      log.add(warning(codes.control, undefined, at(i), id));
  };

  for (let i = 0; i < t.segmentCount; i++) {
    const id = t.segmentId(i);
    if (st >= 0 && id !== 'SE' && id !== 'ST' && id !== 'GE' && id !== 'IEA' && id !== 'ISA' && id !== 'GS')
      continue;
    switch (id) {
      case 'ISA':
        endOpenTransaction(i, 'ISA');
        if (gs >= 0) log.add(warning('X12_MISSING_GE', undefined, at(i), 'ISA'));
        if (isa >= 0 && i > 0) log.add(warning('X12_MISSING_IEA', undefined, at(i), 'ISA'));
        isa = i;
        gs = -1;
        groups = 0;
        version = t.value(i, 12) === '00401' ? '004010' : '';
        break;
      case 'TA1':
        ta1.push(i);
        break;
      case 'GS': {
        endOpenTransaction(i, 'GS');
        if (gs >= 0) log.add(warning('X12_MISSING_GE', undefined, at(i), 'GS'));
        gs = i;
        groups++;
        inGroup = 0;
        const gs08 = t.value(i, 8);
        if (isa >= 0 && gs08 && t.value(isa, 12) === '00401' && gs08.startsWith('005'))
          log.add(warning('X12_VERSION_MISMATCH', 'ISA12 is 00401 and GS08 is 5010.', at(i), 'GS'));
        if (gs08) version = gs08;
        break;
      }
      case 'ST':
        endOpenTransaction(i, 'ST');
        st = i;
        inGroup++;
        // Once per group: a 271 belongs in an HB (eligibility response) functional group.
        if (gs >= 0 && gs !== checkedGs && t.value(i, 1) === '271') {
          checkedGs = gs;
          checkResponseGroup(t, log, gs);
        }
        break;
      case 'SE': {
        if (st < 0) {
          log.add(warning('X12_OUTSIDE_TRANSACTION', 'SE without ST.', at(i), 'SE'));
          break;
        }
        checkTrailer(i, 'SE', i - st + 1, st, 2, {
          count: 'X12_SE01_MISMATCH',
          control: 'X12_ST_SE_CONTROL_MISMATCH',
        });
        closeTransaction(i);
        break;
      }
      case 'GE':
        endOpenTransaction(i, 'GE');
        checkTrailer(i, 'GE', inGroup, gs, 6, {
          count: 'X12_GE01_MISMATCH',
          control: 'X12_GS_GE_CONTROL_MISMATCH',
        });
        gs = -1;
        break;
      case 'IEA':
        endOpenTransaction(i, 'IEA');
        if (gs >= 0) log.add(warning('X12_MISSING_GE', undefined, at(i), 'IEA'));
        checkTrailer(i, 'IEA', groups, isa, 13, {
          count: 'X12_IEA01_MISMATCH',
          control: 'X12_ISA_IEA_CONTROL_MISMATCH',
        });
        isa = -1;
        gs = -1;
        break;
      default:
        if (safeId(id) !== id) log.add(warning('X12_BAD_SEGMENT_ID', 'Outside any transaction.', at(i)));
        else log.add(warning('X12_OUTSIDE_TRANSACTION', `Segment ${id} ignored.`, at(i), id));
    }
  }
  if (st >= 0) {
    log.add(error('X12_TRUNCATED', undefined, at(t.segmentCount - 1)));
    closeTransaction(t.segmentCount);
  } else {
    if (gs >= 0) log.add(warning('X12_MISSING_GE', 'The input ends inside a group.'));
    if (isa >= 0) log.add(warning('X12_MISSING_IEA'));
  }
  return { transactions, ta1 };
}

/** GS01 of the group `gs` of a 271: a warning unless it is HB (eligibility response). */
function checkResponseGroup(t: X12Tokens, log: IssueLog, gs: number): void {
  const gs01 = t.upperValue(gs, 1);
  if (gs01 !== 'HB') {
    const named = /^[A-Z0-9]{1,2}$/.test(gs01) ? gs01 : 'not a code';
    log.add(warning('X12_GS01_NOT_HB', `GS01 is ${named}.`, t.position(gs), 'GS'));
  }
}

/** A segment id fit for a message: real ids only (garbage could be anything, including PHI). */
export function safeId(id: string): string {
  return /^[A-Z0-9]{2,3}$/.test(id) ? id : '(invalid id)';
}
