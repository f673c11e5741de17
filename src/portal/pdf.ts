/**
 * A small PDF writer for the printable check (issue 16): text in the standard Helvetica fonts (every PDF
 * reader has them, so nothing is embedded), wrapped paragraphs, a coloured banner, and simple tables that
 * repeat their header on a new page. US Letter, WinAnsi text; characters outside it print as `?`.
 * Enough for a one- or two-page summary; no dependency.
 */

/** Helvetica and Helvetica-Bold advance widths (1/1000 em) for ASCII 32-126, from the standard AFM files. */
// biome-ignore format: a table
const REGULAR = [
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556,
  556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, 1015, 667, 667, 722, 722, 667, 611, 778, 722, 278,
  500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469,
  556, 333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500,
  278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
];
// biome-ignore format: a table
const BOLD = [
  278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556,
  556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611, 975, 722, 722, 722, 722, 667, 611, 778, 722, 278,
  556, 722, 611, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584,
  556, 333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611, 611, 611, 389, 556,
  333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584,
];

/** Characters outside Latin-1 that WinAnsiEncoding has, by their code there. */
const WIN_ANSI_EXTRA: Record<string, number> = {
  '€': 0x80,
  '‘': 0x91,
  '’': 0x92,
  '“': 0x93,
  '”': 0x94,
  '•': 0x95,
  '–': 0x96,
  '—': 0x97,
};

/** Text as WinAnsi bytes (one per character). */
function winAnsi(text: string): number[] {
  return [...text].map((ch) => {
    const code = ch.codePointAt(0)!;
    if ((code >= 32 && code <= 126) || (code >= 0xa0 && code <= 0xff)) return code;
    return WIN_ANSI_EXTRA[ch] ?? 63;
  });
}

export function textWidth(text: string, size: number, bold = false): number {
  const table = bold ? BOLD : REGULAR;
  let units = 0;
  for (const b of winAnsi(text)) units += b >= 32 && b <= 126 ? table[b - 32]! : 556;
  return (units * size) / 1000;
}

/** A PDF string literal: `(`, `)` and `\` escaped, bytes above 126 as octal escapes. */
function literal(text: string): string {
  return `(${winAnsi(text)
    .map((b) =>
      b === 40 || b === 41 || b === 92
        ? `\\${String.fromCharCode(b)}`
        : b > 126
          ? `\\${b.toString(8).padStart(3, '0')}`
          : String.fromCharCode(b),
    )
    .join('')})`;
}

/** Words of `text` in lines no wider than `width`; a word wider than a line is cut. */
export function wrap(text: string, width: number, size: number, bold = false): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      const candidate = line ? `${line} ${word}` : word;
      if (textWidth(candidate, size, bold) <= width) {
        line = candidate;
        continue;
      }
      if (line) lines.push(line);
      let rest = word;
      while (textWidth(rest, size, bold) > width && rest.length > 1) {
        let n = rest.length - 1;
        while (n > 1 && textWidth(rest.slice(0, n), size, bold) > width) n--;
        lines.push(rest.slice(0, n));
        rest = rest.slice(n);
      }
      line = rest;
    }
    lines.push(line);
  }
  return lines;
}

export type Rgb = [number, number, number];

export interface TextOptions {
  size?: number;
  bold?: boolean;
  colour?: Rgb;
  /** Points from the left margin. */
  indent?: number;
}

const PAGE_WIDTH = 612;
const PAGE_HEIGHT = 792;
const MARGIN = 48;
const LEADING = 1.3;

export class PdfDocument {
  private readonly pages: string[][] = [];
  private ops: string[] = [];
  /** The baseline of the next line, from the bottom of the page. */
  private y = 0;
  readonly width = PAGE_WIDTH - 2 * MARGIN;

  constructor(private readonly footer: string) {
    this.newPage();
  }

  private newPage(): void {
    this.ops = [];
    this.pages.push(this.ops);
    this.y = PAGE_HEIGHT - MARGIN;
  }

  /** Starts a new page unless `height` points still fit above the bottom margin (and the footer). */
  private room(height: number): void {
    if (this.y - height < MARGIN + 14) this.newPage();
  }

  private show(x: number, y: number, text: string, size: number, bold: boolean, colour: Rgb = [0, 0, 0]) {
    this.ops.push(
      `${colour.join(' ')} rg BT /${bold ? 'F2' : 'F1'} ${size} Tf ${x.toFixed(2)} ${y.toFixed(2)} Td ${literal(text)} Tj ET`,
    );
  }

  text(text: string, o: TextOptions = {}): void {
    const size = o.size ?? 10;
    const indent = o.indent ?? 0;
    for (const line of wrap(text, this.width - indent, size, o.bold)) {
      this.room(size * LEADING);
      this.y -= size * LEADING;
      this.show(MARGIN + indent, this.y, line, size, o.bold ?? false, o.colour);
    }
  }

  gap(points: number): void {
    this.y -= points;
  }

  /** A filled box across the page with bold text in it: the verdict. */
  banner(text: string, background: Rgb, colour: Rgb, size = 13): void {
    const lines = wrap(text, this.width - 16, size, true);
    const height = lines.length * size * LEADING + 12;
    this.room(height);
    this.ops.push(
      `${background.join(' ')} rg ${MARGIN} ${(this.y - height).toFixed(2)} ${this.width} ${height.toFixed(2)} re f`,
    );
    let y = this.y - 6;
    for (const line of lines) {
      y -= size * LEADING;
      this.show(MARGIN + 8, y + 3, line, size, true, colour);
    }
    this.y -= height;
  }

  /** Label and value pairs in two columns. */
  facts(pairs: [string, string][], size = 9.5): void {
    const labelWidth = Math.max(...pairs.map(([k]) => textWidth(k, size, true))) + 12;
    for (const [label, value] of pairs) {
      const lines = wrap(value, this.width - labelWidth, size);
      this.room(lines.length * size * LEADING);
      this.y -= size * LEADING;
      this.show(MARGIN, this.y, label, size, true);
      for (const [i, line] of lines.entries()) {
        if (i) this.y -= size * LEADING;
        this.show(MARGIN + labelWidth, this.y, line, size, false);
      }
    }
  }

  /**
   * A table: columns as wide as their widest cell (narrowed in proportion when the page is too narrow),
   * cells wrapped, the header repeated on a new page.
   */
  table(columns: string[], rows: string[][], size = 8): void {
    const pad = 3;
    // A header may wrap at its spaces; the cells below decide the width.
    const natural = columns.map((c, i) =>
      Math.max(
        ...c.split(' ').map((word) => textWidth(word, size, true)),
        ...rows.map((r) => textWidth(r[i] ?? '', size)),
      ),
    );
    const total = natural.reduce((a, b) => a + b + 2 * pad, 0);
    const scale = Math.min(1, this.width / total);
    const widths = natural.map((w) => (w + 2 * pad) * scale);
    const line = size * LEADING;
    const drawRow = (cells: string[], bold: boolean) => {
      const wrapped = cells.map((c, i) => wrap(c, widths[i]! - 2 * pad, size, bold));
      const height = Math.max(...wrapped.map((w) => w.length)) * line + pad;
      return { wrapped, height };
    };
    const header = drawRow(columns, true);
    const paint = (row: { wrapped: string[][]; height: number }, bold: boolean) => {
      let x = MARGIN;
      row.wrapped.forEach((cell, i) => {
        for (const [n, text] of cell.entries()) this.show(x + pad, this.y - (n + 1) * line, text, size, bold);
        x += widths[i]!;
      });
      this.y -= row.height;
      this.ops.push(
        `0.75 0.75 0.75 RG 0.5 w ${MARGIN} ${this.y.toFixed(2)} m ${MARGIN + this.width} ${this.y.toFixed(2)} l S`,
      );
    };
    this.room(header.height + line * 2);
    paint(header, true);
    for (const cells of rows) {
      const row = drawRow(cells, false);
      const before = this.pages.length;
      this.room(row.height);
      if (this.pages.length !== before) paint(header, true);
      paint(row, false);
    }
  }

  /** The finished file. */
  toBuffer(): Buffer {
    const objects: string[] = [];
    const add = (body: string) => objects.push(body) + 2; // object numbers from 3 (1: catalog, 2: pages)
    const fonts = [
      add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>'),
      add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>'),
    ];
    const kids: number[] = [];
    this.pages.forEach((ops, i) => {
      const footer = `${this.footer}  ·  page ${i + 1} of ${this.pages.length}`;
      const content = [
        ...ops,
        `0.4 0.4 0.4 rg BT /F1 7.5 Tf ${MARGIN} ${MARGIN - 16} Td ${literal(footer)} Tj ET`,
      ].join('\n');
      const stream = add(
        `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`,
      );
      kids.push(
        add(
          `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${PAGE_WIDTH} ${PAGE_HEIGHT}] /Resources << /Font << /F1 ${fonts[0]} 0 R /F2 ${fonts[1]} 0 R >> >> /Contents ${stream} 0 R >>`,
        ),
      );
    });
    const all = [
      '<< /Type /Catalog /Pages 2 0 R >>',
      `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`,
      ...objects,
    ];
    let out = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
    const offsets: number[] = [];
    all.forEach((body, i) => {
      offsets.push(Buffer.byteLength(out, 'latin1'));
      out += `${i + 1} 0 obj\n${body}\nendobj\n`;
    });
    const xref = Buffer.byteLength(out, 'latin1');
    out += `xref\n0 ${all.length + 1}\n0000000000 65535 f \n${offsets
      .map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)
      .join('')}`;
    out += `trailer\n<< /Size ${all.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
    return Buffer.from(out, 'latin1');
  }
}
