/**
 * Builds small 271 interchanges for tests: a 106-wide ISA, GS/ST/SE/GE/IEA with correct counts and
 * control numbers, around the body segments given (written with `*`, `:`, `^`, `~`).
 */
export const ISA =
  'ISA*00*          *00*          *ZZ*PAYER          *ZZ*CLINIC         *260101*1200*^*00501*000000001*0*P*:~';

export function transaction(body: string[], control = '0001'): string[] {
  return [`ST*271*${control}*005010X279A1`, ...body, `SE*${body.length + 2}*${control}`];
}

export function interchange(transactions: string[][], separator = '\n'): string {
  const segments = [
    'GS*HB*PAYER*CLINIC*20260101*1200*1*X*005010X279A1',
    ...transactions.flat(),
    `GE*${transactions.length}*1`,
    'IEA*1*000000001',
  ];
  return ISA + separator + segments.map((s) => `${s}~`).join(separator);
}

export const build271 = (body: string[]) => interchange([transaction(body)]);

/** Source, receiver and subscriber loops of a plain 271, with the subscriber's EB rows appended. */
export function simple271(subscriberRows: string[] = ['EB*1*IND*30*PR*GOLD PLAN']): string[] {
  return [
    'BHT*0022*11*REF1*20260101*1200',
    'HL*1**20*1',
    'NM1*PR*2*ACME HEALTH*****PI*ACME1',
    'HL*2*1*21*1',
    'NM1*1P*2*CLINIC*****XX*1234567893',
    'HL*3*2*22*0',
    'TRN*2*TRACE1*9CLINIC',
    'NM1*IL*1*DOE*JANE****MI*M100',
    'DMG*D8*19800101*F',
    ...subscriberRows,
  ];
}
