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
const ROOT_SCOPE: ReadonlyMap<string, string> = new Map([['xml', XML_NS]]);
const LT = 60;
const GT = 62;
const SLASH = 47;
const EQUALS = 61;

export function parseXml(input: string, limits: XmlLimits = {}): XmlElement {
  const bad = ILLEGAL_CHAR.exec(input);
  if (bad) throw new XmlError('a character XML does not allow', bad.index);
  return new XmlReader(input, limits.maxDepth ?? 32, limits.maxElements ?? 10_000).document();
}

/** One pass over the text with a cursor; methods rather than closures keep the per-element cost low. */
class XmlReader {
  private i: number;
  private elements = 0;

  constructor(
    private readonly input: string,
    private readonly maxDepth: number,
    private readonly maxElements: number,
  ) {
    this.i = input.charCodeAt(0) === 0xfeff ? 1 : 0;
  }

  document(): XmlElement {
    const input = this.input;
    const stack: XmlElement[] = [];
    let root: XmlElement | undefined;
    if (input.startsWith('<?xml', this.i) && /[ \t\r\n?]/.test(input[this.i + 5] ?? '')) {
      this.skipPast('?>', 'declaration');
    }
    while (this.i < input.length) {
      const top = stack.at(-1);
      if (!top) {
        this.skipSpace();
        if (this.i >= input.length) break;
        if (input.charCodeAt(this.i) !== LT) this.fail('text outside the root element');
      }
      const i = this.i;
      if (input.charCodeAt(i) !== LT) {
        const end = input.indexOf('<', i);
        if (end < 0) this.fail('unterminated element');
        const raw = input.slice(i, end);
        if (raw.includes(']]>')) this.fail("']]>' in text");
        top!.text += decode(raw, i);
        this.i = end;
      } else if (input.startsWith('<!--', i)) {
        this.i += 4;
        this.skipPast('-->', 'comment');
        if (input.slice(i + 4, this.i - 3).includes('--')) this.fail("'--' inside a comment", i);
      } else if (input.startsWith('<![CDATA[', i)) {
        if (!top) this.fail('CDATA outside the root element');
        this.i += 9;
        const from = this.skipPast(']]>', 'CDATA section');
        top!.text += input.slice(from, this.i - 3);
      } else if (input.startsWith('<!', i)) {
        this.fail(
          input.startsWith('<!DOCTYPE', i) ? 'DOCTYPE is not allowed' : 'unexpected markup declaration',
        );
      } else if (input.startsWith('<?', i)) {
        this.i += 2;
        if (this.readName().toLowerCase() === 'xml') this.fail('an XML declaration past the start');
        this.skipPast('?>', 'processing instruction');
      } else if (input.startsWith('</', i)) {
        this.i += 2;
        const name = this.readName();
        this.skipSpace();
        if (input.charCodeAt(this.i) !== GT) this.fail("'>' expected");
        this.i++;
        const open = stack.pop();
        if (!open || open.qname !== name) this.fail('an end tag does not match its start tag');
      } else {
        if (!top && root) this.fail('a second root element');
        if (stack.length >= this.maxDepth) this.fail('elements nested too deeply');
        if (++this.elements > this.maxElements) this.fail('too many elements');
        this.i++;
        const element = this.startTag(top?.scope ?? ROOT_SCOPE);
        if (top) top.children.push(element);
        else root = element;
        if (input.charCodeAt(this.i) === SLASH) this.i += 2;
        else {
          this.i++;
          stack.push(element);
        }
      }
    }
    if (stack.length || !root) this.fail('the document ends inside an element');
    return root!;
  }

  private fail(problem: string, at = this.i): never {
    throw new XmlError(problem, at);
  }

  private skipSpace(): void {
    SPACE.lastIndex = this.i;
    SPACE.exec(this.input);
    this.i = SPACE.lastIndex;
  }

  private readName(): string {
    NAME.lastIndex = this.i;
    const m = NAME.exec(this.input);
    if (!m) this.fail('a name was expected');
    this.i = NAME.lastIndex;
    return m[0];
  }

  private skipPast(end: string, what: string): number {
    const at = this.input.indexOf(end, this.i);
    if (at < 0) this.fail(`unterminated ${what}`);
    const from = this.i;
    this.i = at + end.length;
    return from;
  }

  /** From after `<` to the `>` or `/>` (left for the caller); namespaces resolved against the parent's. */
  private startTag(parentScope: ReadonlyMap<string, string>): XmlElement {
    const input = this.input;
    const at = this.i;
    const qname = this.readName();
    let names: string[] | undefined;
    let values: string[] | undefined;
    let scope = parentScope;
    let declared: string[] | undefined;
    for (;;) {
      const before = this.i;
      this.skipSpace();
      const c = input.charCodeAt(this.i);
      if (c === GT || (c === SLASH && input.charCodeAt(this.i + 1) === GT)) break;
      if (this.i === before) this.fail("space, '>' or '/>' expected");
      const name = this.readName();
      this.skipSpace();
      if (input.charCodeAt(this.i) !== EQUALS) this.fail("'=' expected");
      this.i++;
      this.skipSpace();
      const quote = input[this.i];
      if (quote !== '"' && quote !== "'") this.fail('a quoted attribute value was expected');
      const end = input.indexOf(quote, this.i + 1);
      if (end < 0) this.fail('unterminated attribute value');
      const raw = input.slice(this.i + 1, end);
      if (raw.includes('<')) this.fail("'<' in an attribute value");
      const value = decode(raw, this.i + 1);
      this.i = end + 1;
      if (name === 'xmlns' || name.startsWith('xmlns:')) {
        const prefix = name === 'xmlns' ? '' : name.slice(6);
        if (prefix && !value) this.fail('a prefix bound to no namespace', at);
        if (scope === parentScope) scope = new Map(parentScope);
        declared ??= [];
        if (declared.includes(prefix)) this.fail('a repeated attribute');
        declared.push(prefix);
        (scope as Map<string, string>).set(prefix, value);
        continue;
      }
      names ??= [];
      values ??= [];
      if (names.includes(name)) this.fail('a repeated attribute');
      names.push(name);
      values.push(value);
    }
    const attributes: XmlAttribute[] = [];
    for (let k = 0; names && k < names.length; k++) {
      const [ns, local] = this.resolve(names[k]!, scope, true, at);
      attributes.push({ ns, name: local, value: values![k]! });
    }
    const [ns, name] = this.resolve(qname, scope, false, at);
    return { ns, name, qname, attributes, children: [], text: '', scope };
  }

  private resolve(name: string, scope: ReadonlyMap<string, string>, attribute: boolean, at: number) {
    const colon = name.indexOf(':');
    if (colon < 0) return [attribute ? '' : (scope.get('') ?? ''), name] as const;
    const ns = scope.get(name.slice(0, colon));
    if (ns === undefined) this.fail('an undeclared namespace prefix', at);
    return [ns, name.slice(colon + 1)] as const;
  }
}

function decode(raw: string, at: number): string {
  if (!raw.includes('&')) return raw;
  return raw.replace(/&([^;&]{0,10});?/g, (whole, ref: string, offset: number) => {
    const fail = (problem: string): never => {
      throw new XmlError(problem, at + offset);
    };
    if (!whole.endsWith(';')) fail("'&' that starts no reference");
    if (ref in ENTITIES) return ENTITIES[ref]!;
    const code = /^#x[0-9A-Fa-f]{1,6}$/.test(ref)
      ? Number.parseInt(ref.slice(2), 16)
      : /^#[0-9]{1,7}$/.test(ref)
        ? Number(ref.slice(1))
        : Number.NaN;
    if (Number.isNaN(code) || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
      fail('an unknown entity or bad character reference');
    const char = String.fromCodePoint(code);
    if (ILLEGAL_CHAR.test(char)) fail('a character reference XML does not allow');
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
