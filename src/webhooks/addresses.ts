/**
 * Which IP addresses a webhook may reach: public unicast only. Addresses are parsed to bytes here rather
 * than matched as text, so every spelling of an address (`::ffff:127.0.0.1`, `0:0:0:0:0:ffff:7f00:1`,
 * a zone id suffix) gets the same answer. Anything that does not parse as a canonical address is treated
 * as forbidden: callers pass resolver output or WHATWG-normalized hostnames, never user spellings.
 *
 * IPv6 is allowed only inside global unicast 2000::/3 (everything else is reserved by IANA), minus the
 * special-purpose blocks below. Addresses that embed an IPv4 address (IPv4-mapped, NAT64, 6to4) are
 * judged by the embedded IPv4 address, so `::ffff:10.0.0.1` is as private as `10.0.0.1`.
 */

interface Range {
  bytes: Uint8Array;
  prefix: number;
  label: string;
}

function range(cidr: string, label: string): Range {
  const [address, prefix] = cidr.split('/') as [string, string];
  const bytes = parseIPv4(address) ?? parseIPv6(address);
  if (!bytes) throw new Error(`bad CIDR in table: ${cidr}`);
  return { bytes, prefix: Number(prefix), label };
}

// RFC 6890 and the IANA special-purpose registries: blocks that are not globally reachable.
const IPV4_FORBIDDEN: Range[] = [
  range('0.0.0.0/8', 'a "this network" address'),
  range('10.0.0.0/8', 'a private (RFC 1918) address'),
  range('100.64.0.0/10', 'a carrier-grade NAT (shared) address'),
  range('127.0.0.0/8', 'a loopback address'),
  range('169.254.0.0/16', 'a link-local address (this includes cloud metadata services)'),
  range('172.16.0.0/12', 'a private (RFC 1918) address'),
  range('192.0.0.0/24', 'an IETF protocol address'),
  range('192.0.2.0/24', 'a documentation address'),
  range('192.88.99.0/24', 'a 6to4 relay address'),
  range('192.168.0.0/16', 'a private (RFC 1918) address'),
  range('198.18.0.0/15', 'a benchmarking address'),
  range('198.51.100.0/24', 'a documentation address'),
  range('203.0.113.0/24', 'a documentation address'),
  range('224.0.0.0/4', 'a multicast address'),
  range('255.255.255.255/32', 'the broadcast address'),
  range('240.0.0.0/4', 'a reserved address'),
];

const IPV6_FORBIDDEN: Range[] = [
  range('::/128', 'the unspecified address'),
  range('::1/128', 'a loopback address'),
  range('::/96', 'an IPv4-compatible address (deprecated)'),
  range('64:ff9b:1::/48', 'a local NAT64 address'),
  range('100::/64', 'a discard-only address'),
  range('2001::/23', 'an IETF protocol address (Teredo, benchmarking)'),
  range('2001:db8::/32', 'a documentation address'),
  range('3fff::/20', 'a documentation address'),
  range('5f00::/16', 'a segment-routing address'),
  range('fc00::/7', 'a unique local (private) address'),
  range('fe80::/10', 'a link-local address'),
  range('fec0::/10', 'a site-local address (deprecated)'),
  range('ff00::/8', 'a multicast address'),
];
const IPV6_GLOBAL_UNICAST = range('2000::/3', 'global unicast');
const IPV4_MAPPED = range('::ffff:0:0/96', 'IPv4-mapped');
const NAT64 = range('64:ff9b::/96', 'NAT64');
const SIX_TO_FOUR = range('2002::/16', '6to4');

function inRange(bytes: Uint8Array, r: Range): boolean {
  if (bytes.length !== r.bytes.length) return false;
  const whole = r.prefix >> 3;
  for (let i = 0; i < whole; i++) if (bytes[i] !== r.bytes[i]) return false;
  const rest = r.prefix & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (bytes[whole]! & mask) === (r.bytes[whole]! & mask);
}

/** Strict dotted-decimal IPv4 (no leading zeros, no short forms) to 4 bytes. */
export function parseIPv4(text: string): Uint8Array | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const bytes = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const part = parts[i]!;
    if (!/^(0|[1-9]\d{0,2})$/.test(part) || Number(part) > 255) return null;
    bytes[i] = Number(part);
  }
  return bytes;
}

/** IPv6 text (with `::`, an embedded dotted quad, or a `%zone` suffix) to 16 bytes. */
export function parseIPv6(text: string): Uint8Array | null {
  const address = text.replace(/%[^%]*$/, '');
  if (!/^[0-9a-fA-F:.]+$/.test(address)) return null;
  const halves = address.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (part: string): number[] | null => {
    if (part === '') return [];
    const out: number[] = [];
    const pieces = part.split(':');
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i]!;
      if (i === pieces.length - 1 && piece.includes('.')) {
        const v4 = parseIPv4(piece);
        if (!v4) return null;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else if (/^[0-9a-fA-F]{1,4}$/.test(piece)) out.push(Number.parseInt(piece, 16));
      else return null;
    }
    return out;
  };
  const head = groupsOf(halves[0]!);
  const tail = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (!head || !tail) return null;
  // A dotted quad may only end the address.
  if (halves.length === 2 && halves[0]!.includes('.')) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...head, ...Array<number>(missing).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 0xff;
  });
  return bytes;
}

function describeIPv4(bytes: Uint8Array): string | null {
  return IPV4_FORBIDDEN.find((r) => inRange(bytes, r))?.label ?? null;
}

/**
 * Why an address is forbidden (a phrase such as "a loopback address"), or null when it is a public
 * unicast address a webhook may reach.
 */
export function forbiddenAddressReason(ip: string): string | null {
  const v4 = parseIPv4(ip);
  if (v4) return describeIPv4(v4);
  const v6 = parseIPv6(ip);
  if (!v6) return 'not an IP address';
  if (inRange(v6, IPV4_MAPPED) || inRange(v6, NAT64)) return describeIPv4(v6.subarray(12, 16));
  if (inRange(v6, SIX_TO_FOUR)) return describeIPv4(v6.subarray(2, 6));
  const special = IPV6_FORBIDDEN.find((r) => inRange(v6, r));
  if (special) return special.label;
  return inRange(v6, IPV6_GLOBAL_UNICAST) ? null : 'a reserved address';
}

/** True for addresses a webhook must never reach (unless private targets are allowed). */
export function isForbiddenAddress(ip: string): boolean {
  return forbiddenAddressReason(ip) !== null;
}
