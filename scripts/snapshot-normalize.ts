/**
 * What the byte-identity scripts (sandbox-snapshot.ts, portal-snapshot.ts) replace in their output, so that
 * two runs compare equal unless behaviour changed: ids, the listening address, the payer's trace and control
 * numbers and interchange dates and times, and timestamps.
 */
export function normalizeRun(text: string): string {
  return text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'UUID')
    .replace(/http:\/\/127\.0\.0\.1:\d+/g, 'URL')
    .replace(/[0-9a-f]{32}/g, 'TRACE')
    .replace(/SBX\d{9}/g, 'SBXTRACE')
    .replace(/\*(\d{6}|\d{8})\*\d{4}([*~])/g, '*D*T$2')
    .replace(/\b\d{9}\b/g, 'CTRL')
    .replace(/\*D\*T\*\d+\*X\*/g, '*D*T*CTRL*X*')
    .replace(/(GE|IEA)\*(\d+)\*\d+~/g, '$1*$2*CTRL~')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, 'TIME');
}
