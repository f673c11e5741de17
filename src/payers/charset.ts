/**
 * Text from a gateway's bytes in the character set the answer declares: the HTTP `charset` parameter, a
 * MIME part's `charset`, an XML byte-order mark or declaration (XML 1.0 appendix F, RFC 7303 §3). Labels
 * are read by the WHATWG Encoding Standard through `TextDecoder` (`ISO-8859-1` reads as windows-1252, its
 * superset). A label the decoder does not know throws UnknownCharsetError, which connectors turn into a
 * payer error naming the label; bytes that are not valid in the charset become U+FFFD, which the X12
 * reader reports (`X12_REPLACEMENT_CHARACTER`) rather than store silently.
 */

export class UnknownCharsetError extends Error {
  constructor(readonly label: string) {
    super(`unknown character set ${safeLabel(label)}`);
    this.name = 'UnknownCharsetError';
  }
}

/** A charset label as it may appear in an error message: registered names are short tokens. */
export function safeLabel(label: string): string {
  const v = label.trim();
  return /^[A-Za-z0-9][A-Za-z0-9._:+-]{0,39}$/.test(v) ? v : '(unreadable)';
}

/** The `charset` parameter of a Content-Type value, without quotes; undefined when absent. */
export function charsetOf(contentType: string): string | undefined {
  const m = /;\s*charset\s*=\s*(?:"([^"]*)"|([^\s;"]+))/i.exec(contentType);
  const value = (m?.[1] ?? m?.[2])?.trim();
  return value ? value : undefined;
}

const DECODERS = new Map<string, TextDecoder>();

/** The bytes as text in `label` (UTF-8 when undefined); a byte-order mark of that encoding is dropped. */
export function decodeText(bytes: Uint8Array, label: string | undefined): string {
  const key = (label ?? 'utf-8').trim().toLowerCase();
  let decoder = DECODERS.get(key);
  if (!decoder) {
    try {
      decoder = new TextDecoder(key);
    } catch {
      throw new UnknownCharsetError(label ?? '');
    }
    // `replacement` stands for encodings that must not be decoded (ISO-2022-KR, HZ…): refused as unknown.
    if (decoder.encoding === 'replacement') throw new UnknownCharsetError(label ?? '');
    if (DECODERS.size < 32) DECODERS.set(key, decoder);
  }
  return decoder.decode(bytes);
}

/**
 * An XML document's text: a byte-order mark wins, then the transport's charset, then the declaration's
 * `encoding`, then UTF-16 without a mark (`<?` as 16-bit units), then UTF-8.
 */
export function decodeXml(bytes: Uint8Array, transportCharset: string | undefined): string {
  const [b0, b1, b2, b3] = bytes;
  if (b0 === 0xef && b1 === 0xbb && b2 === 0xbf) return decodeText(bytes, 'utf-8');
  if (b0 === 0xff && b1 === 0xfe) return decodeText(bytes, 'utf-16le');
  if (b0 === 0xfe && b1 === 0xff) return decodeText(bytes, 'utf-16be');
  if (transportCharset) return decodeText(bytes, transportCharset);
  if (b0 === 0x3c && b1 === 0x00 && b2 === 0x3f && b3 === 0x00) return decodeText(bytes, 'utf-16le');
  if (b0 === 0x00 && b1 === 0x3c && b2 === 0x00 && b3 === 0x3f) return decodeText(bytes, 'utf-16be');
  return decodeText(bytes, declaredEncoding(bytes));
}

/** `encoding="…"` of an ASCII-compatible XML declaration at the very start, undefined when none. */
function declaredEncoding(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 200)).toString('latin1');
  if (!head.startsWith('<?xml')) return undefined;
  const end = head.indexOf('?>');
  const declaration = end < 0 ? head : head.slice(0, end);
  return /\sencoding\s*=\s*(?:"([^"]*)"|'([^']*)')/
    .exec(declaration)
    ?.slice(1)
    .find((v) => v !== undefined);
}
