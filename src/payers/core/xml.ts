/**
 * A small, strict XML reader for SOAP 1.2 envelopes: elements with namespaces, attributes, text, CDATA,
 * comments and processing instructions; the five predefined entities and character references. DOCTYPE is
 * refused (no entity expansion, no external fetches), as SOAP 1.2 itself requires. Names are ASCII, the
 * depth and element count are bounded, and anything not well-formed throws an XmlError whose message
 * names the problem and an offset, never the content.
 */

export interface XmlAttribute {
  ns: string;
  name: string;
  value: string;
}

export interface XmlElement {
  /** Namespace URI, '' when none. */
  ns: string;
  /** Local name (without prefix). */
  name: string;
  /** The prefixed name as written (to match the end tag and to resolve QName values such as fault codes). */
  qname: string;
  attributes: XmlAttribute[];
  children: XmlElement[];
  /** Character data directly inside the element (text and CDATA), entities decoded. */
  text: string;
  /** In-scope namespace declarations: prefix ('' for the default) → URI. */
  scope: ReadonlyMap<string, string>;
}

export class XmlError extends Error {
  constructor(problem: string, at: number) {
    super(`Malformed XML: ${problem} (at offset ${at})`);
    this.name = 'XmlError';
  }
}

export interface XmlLimits {
  maxDepth?: number;
  maxElements?: number;
}

const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const NAME = /[A-Za-z_][A-Za-z0-9._-]*(?::[A-Za-z_][A-Za-z0-9._-]*)?/y;
const SPACE = /[ \t\r\n]*/y;
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters XML 1.0 forbids.
const ILLEGAL_CHAR = /[\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]/;
const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

export function parseXml(input: string, limits: XmlLimits = {}): XmlElement {
  const maxDepth = limits.maxDepth ?? 32;
  const maxElements = limits.maxElements ?? 10_000;
  const bad = ILLEGAL_CHAR.exec(input);
  if (bad) throw new XmlError('a character XML does not allow', bad.index);
  let i = input.charCodeAt(0) === 0xfeff ? 1 : 0;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let elements = 0;

  const fail = (problem: string, at = i): never => {
    throw new XmlError(problem, at);
  };
  const skipSpace = () => {
    SPACE.lastIndex = i;
    SPACE.exec(input);
    i = SPACE.lastIndex;
  };
  const readName = (): string => {
    NAME.lastIndex = i;
    const m = NAME.exec(input);
    if (!m) fail('a name was expected');
    i = NAME.lastIndex;
    return m![0];
  };
  const skipPast = (end: string, what: string): number => {
    const at = input.indexOf(end, i);
    if (at < 0) fail(`unterminated ${what}`);
    const from = i;
    i = at + end.length;
    return from;
  };

  if (input.startsWith('<?xml', i) && /[ \t\r\n?]/.test(input[i + 5] ?? '')) skipPast('?>', 'declaration');
  while (i < input.length) {
    const top = stack.at(-1);
    if (!top) {
      skipSpace();
      if (i >= input.length) break;
      if (input[i] !== '<') fail('text outside the root element');
    }
    if (input[i] !== '<') {
      const end = input.indexOf('<', i);
      if (end < 0) fail('unterminated element');
      const raw = input.slice(i, end);
      if (raw.includes(']]>')) fail("']]>' in text");
      top!.text += decode(raw, i, fail);
      i = end;
      continue;
    }
    if (input.startsWith('<!--', i)) {
      const from = i;
      i += 4;
      skipPast('-->', 'comment');
      if (input.slice(from + 4, i - 3).includes('--')) fail("'--' inside a comment", from);
    } else if (input.startsWith('<![CDATA[', i)) {
      if (!top) fail('CDATA outside the root element');
      i += 9;
      const from = skipPast(']]>', 'CDATA section');
      top!.text += input.slice(from, i - 3);
    } else if (input.startsWith('<!', i)) {
      fail(input.startsWith('<!DOCTYPE', i) ? 'DOCTYPE is not allowed' : 'unexpected markup declaration');
    } else if (input.startsWith('<?', i)) {
      i += 2;
      const target = readName();
      if (target.toLowerCase() === 'xml') fail('an XML declaration past the start');
      skipPast('?>', 'processing instruction');
    } else if (input.startsWith('</', i)) {
      i += 2;
      const name = readName();
      skipSpace();
      if (input[i] !== '>') fail("'>' expected");
      i++;
      const open = stack.pop();
      if (!open || open.qname !== name) fail('an end tag does not match its start tag');
    } else {
      if (!top && root) fail('a second root element');
      if (stack.length >= maxDepth) fail('elements nested too deeply');
      if (++elements > maxElements) fail('too many elements');
      i++;
      const element = readStartTag(top?.scope);
      if (top) top.children.push(element);
      else root = element;
      if (input[i] === '/') {
        i += 2;
      } else {
        i++;
        stack.push(element);
      }
    }
  }
  if (stack.length || !root) fail('the document ends inside an element');
  return root!;

  function readStartTag(parentScope: ReadonlyMap<string, string> | undefined): XmlElement {
    const at = i;
    const qname = readName();
    const raw: { qname: string; value: string }[] = [];
    for (;;) {
      const before = i;
      skipSpace();
      if (input[i] === '>' || input.startsWith('/>', i)) break;
      if (i === before) fail("space, '>' or '/>' expected");
      const name = readName();
      skipSpace();
      if (input[i] !== '=') fail("'=' expected");
      i++;
      skipSpace();
      const quote = input[i];
      if (quote !== '"' && quote !== "'") fail('a quoted attribute value was expected');
      const end = input.indexOf(quote!, i + 1);
      if (end < 0) fail('unterminated attribute value');
      const value = input.slice(i + 1, end);
      if (value.includes('<')) fail("'<' in an attribute value", i);
      if (raw.some((a) => a.qname === name)) fail('a repeated attribute', i);
      raw.push({ qname: name, value: decode(value, i + 1, fail) });
      i = end + 1;
    }
    let scope = parentScope ?? new Map([['xml', XML_NS]]);
    const declarations = raw.filter((a) => a.qname === 'xmlns' || a.qname.startsWith('xmlns:'));
    if (declarations.length) {
      const own = new Map(scope);
      for (const d of declarations) {
        const prefix = d.qname === 'xmlns' ? '' : d.qname.slice(6);
        if (prefix && !d.value) fail('a prefix bound to no namespace', at);
        own.set(prefix, d.value);
      }
      scope = own;
    }
    const resolve = (name: string, isAttribute: boolean) => {
      const colon = name.indexOf(':');
      if (colon < 0) return { ns: isAttribute ? '' : (scope.get('') ?? ''), name };
      const ns = scope.get(name.slice(0, colon));
      if (ns === undefined) fail('an undeclared namespace prefix', at);
      return { ns: ns!, name: name.slice(colon + 1) };
    };
    const attributes = raw
      .filter((a) => !declarations.includes(a))
      .map((a) => ({ ...resolve(a.qname, true), value: a.value }));
    return { ...resolve(qname, false), qname, attributes, children: [], text: '', scope };
  }
}

function decode(raw: string, at: number, fail: (problem: string, at: number) => never): string {
  if (!raw.includes('&')) return raw;
  return raw.replace(/&([^;&]{0,10});?/g, (whole, ref: string, offset: number) => {
    if (!whole.endsWith(';')) fail("'&' that starts no reference", at + offset);
    if (ref in ENTITIES) return ENTITIES[ref]!;
    const code = /^#x[0-9A-Fa-f]{1,6}$/.test(ref)
      ? Number.parseInt(ref.slice(2), 16)
      : /^#[0-9]{1,7}$/.test(ref)
        ? Number(ref.slice(1))
        : Number.NaN;
    if (Number.isNaN(code) || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
      fail('an unknown entity or bad character reference', at + offset);
    const char = String.fromCodePoint(code);
    if (ILLEGAL_CHAR.test(char)) fail('a character reference XML does not allow', at + offset);
    return char;
  });
}

/** Child elements with this namespace and local name. */
export function childrenNamed(parent: XmlElement, ns: string, name: string): XmlElement[] {
  return parent.children.filter((c) => c.ns === ns && c.name === name);
}

/** Writes text as XML character data (element content or a double-quoted attribute value). */
export function escapeXml(text: string): string {
  return text.replace(/[<>&"]/g, (c) =>
    c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '&' ? '&amp;' : '&quot;',
  );
}

/** Text as a CDATA section; a `]]>` inside is split across two sections so it survives intact. */
export function cdata(text: string): string {
  return `<![CDATA[${text.replaceAll(']]>', ']]]]><![CDATA[>')}]]>`;
}

/** True when the text holds a character XML 1.0 cannot carry at all (not even in CDATA). */
export function hasIllegalXmlChar(text: string): boolean {
  return ILLEGAL_CHAR.test(text);
}
