// Functions of src/ longer than a screen: `npx tsx scripts/function-lengths.ts [max-lines]` (default 120) lists
// every function, method and arrow function whose lines exceed it, longest first. A function's lines run from
// its first token to its closing brace, nested functions included, less the lines of declarative tables in it:
// object and array literals with no function inside (a table of codes reads at a glance however long it is).
// test/architecture.test.ts holds src/ to MAX_FUNCTION_LINES.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

export const MAX_FUNCTION_LINES = 120;

export interface FunctionLength {
  /** The file, relative to the directory that was scanned from (`src/api/app.ts`). */
  file: string;
  /** `name`, `Class.method`, the variable or property an arrow function is assigned to, or `<anonymous>`. */
  name: string;
  /** 1-based line of its first token. */
  line: number;
  lines: number;
}

/** The length of every function in one file's text. */
export function functionLengths(file: string, text: string): FunctionLength[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line;
  const span = (node: ts.Node) => lineOf(node.end) - lineOf(node.getStart(source)) + 1;
  const found: FunctionLength[] = [];
  const visit = (node: ts.Node) => {
    if (isFunction(node)) {
      found.push({
        file,
        name: functionName(node),
        line: lineOf(node.getStart(source)) + 1,
        lines: span(node) - tableLines(node, span),
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every function of the .ts files under `dir` longer than `maxLines`, longest first. */
export function longFunctions(dir: string, maxLines = MAX_FUNCTION_LINES, base = dir): FunctionLength[] {
  return tsFiles(dir)
    .flatMap((path) => functionLengths(relative(base, path), readFileSync(path, 'utf8')))
    .filter((f) => f.lines > maxLines)
    .sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file) || a.line - b.line);
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return /\.m?ts$/.test(entry.name) && !/\.d\.m?ts$/.test(entry.name) ? [path] : [];
  });
}

function isFunction(node: ts.Node): node is ts.FunctionLikeDeclaration {
  return (
    (ts.isFunctionDeclaration(node) ||
      ts.isFunctionExpression(node) ||
      ts.isArrowFunction(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isConstructorDeclaration(node) ||
      ts.isGetAccessorDeclaration(node) ||
      ts.isSetAccessorDeclaration(node)) &&
    node.body !== undefined
  );
}

function functionName(node: ts.FunctionLikeDeclaration): string {
  const own = node.name && ts.isIdentifier(node.name) ? node.name.text : undefined;
  if (
    ts.isConstructorDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  ) {
    const owner = ts.isClassLike(node.parent) ? node.parent.name?.text : undefined;
    const name = ts.isConstructorDeclaration(node) ? 'constructor' : (own ?? node.name.getText());
    return owner ? `${owner}.${name}` : name;
  }
  if (own) return own;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText();
  return '<anonymous>';
}

/** Lines of the outermost object and array literals inside `fn` that hold no function: declarative tables. */
function tableLines(fn: ts.Node, span: (node: ts.Node) => number): number {
  let lines = 0;
  const visit = (node: ts.Node) => {
    if (
      (ts.isObjectLiteralExpression(node) || ts.isArrayLiteralExpression(node)) &&
      !containsFunction(node)
    ) {
      lines += span(node) - 1; // the line it opens on is code (`const x = {`, `return [`)
      return;
    }
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(fn, visit);
  return lines;
}

function containsFunction(node: ts.Node): boolean {
  return isFunction(node) || ts.forEachChild(node, containsFunction) === true;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const max = Number(process.argv[2] ?? MAX_FUNCTION_LINES);
  const long = longFunctions('src', max, '.');
  for (const f of long) console.log(`${String(f.lines).padStart(4)}  ${f.file}:${f.line}  ${f.name}`);
  console.log(`${long.length} function${long.length === 1 ? '' : 's'} over ${max} lines in src/`);
}
