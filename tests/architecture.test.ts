// The repository's dependency rules, read from the source: no import circles in src/; domains (src/ outside
// src/server/) import neither src/server/ nor a transport; browser code imports only client/, components/ and
// src/contract/, which in turn imports nothing else from src/.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const SOURCE = /\.(ts|tsx|mts|js|mjs)$/;
const TRANSPORTS = [/^next($|\/)/, /^next-auth($|\/)/, /^@trpc\//, /^trpc-to-openapi($|\/)/, /^@modelcontextprotocol\//, /^@a2a-js\//];
const RESOLVABLE = ['', '.ts', '.tsx', '.mts', '.mjs', '.js', '/index.ts', '/index.tsx'];

interface Import {
  from: string;
  line: number;
  specifier: string;
  /** Repository-relative path of the imported file; undefined for packages and unresolvable paths. */
  target?: string;
  typeOnly: boolean;
}

const isTest = (file: string) => /\.test\.tsx?$/.test(file);

function sourceFiles(dir: string): string[] {
  const absolute = path.join(ROOT, dir);
  if (!fs.existsSync(absolute)) return [];
  return fs
    .readdirSync(absolute, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .filter((file) => !isTest(file))
    .sort();
}

function resolveTarget(from: string, specifier: string): string | undefined {
  let base: string;
  if (specifier.startsWith('@/')) base = specifier.slice(2);
  else if (specifier.startsWith('.')) base = path.posix.join(path.posix.dirname(from), specifier);
  else return undefined;
  // `./x.js` names `./x.ts` under bundler resolution.
  const candidates = RESOLVABLE.map((suffix) => base + suffix).concat(base.replace(/\.m?js$/, '.ts'));
  return candidates.find((candidate) => fs.statSync(path.join(ROOT, candidate), { throwIfNoEntry: false })?.isFile());
}

/** Every import, re-export, `import()` and `require()` of a file, marking those erased at compile time. */
function importsOf(file: string): Import[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Import[] = [];
  const add = (literal: ts.Node, typeOnly: boolean) => {
    if (!ts.isStringLiteralLike(literal)) return;
    const line = source.getLineAndCharacterOfPosition(literal.getStart()).line + 1;
    found.push({ from: file, line, specifier: literal.text, target: resolveTarget(file, literal.text), typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const everyNameTyped =
        !!clause &&
        !clause.name &&
        !!named &&
        ts.isNamedImports(named) &&
        named.elements.length > 0 &&
        named.elements.every((e) => e.isTypeOnly);
      add(node.moduleSpecifier, !!clause?.isTypeOnly || everyNameTyped);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      const named = node.exportClause;
      const everyNameTyped = !!named && ts.isNamedExports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
      add(node.moduleSpecifier, node.isTypeOnly || everyNameTyped);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, node.isTypeOnly);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal, true);
    } else if (ts.isCallExpression(node) && node.arguments.length > 0) {
      const isImport = node.expression.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(node.expression) && node.expression.text === 'require';
      if (isImport || isRequire) add(node.arguments[0]!, false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const where = (i: Import) => `${i.from}:${i.line}`;
const under = (file: string | undefined, dir: string) => !!file && file.startsWith(dir);

/** Strongly connected components of more than one file (Tarjan), each sorted, in a stable order. */
function circles(files: string[], edges: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (file: string) => {
    index.set(file, counter);
    low.set(file, counter);
    counter++;
    stack.push(file);
    onStack.add(file);
    for (const next of edges.get(file) ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (edges.get(file) ?? []).includes(file)) found.push(component.sort());
  };
  for (const file of files) if (!index.has(file)) connect(file);
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

function assertNone(violations: string[], rule: string) {
  if (violations.length > 0) expect.fail(`${rule}\n\n  ${violations.join('\n  ')}\n`);
}

const srcFiles = sourceFiles('src');
const browserFiles = [...sourceFiles('components'), ...sourceFiles('client')];
const imports = new Map([...srcFiles, ...browserFiles].map((file) => [file, importsOf(file)]));
const domainFiles = srcFiles.filter((file) => !under(file, 'src/server/'));

describe('architecture', () => {
  it('finds the source it checks', () => {
    expect(srcFiles).toContain('src/app.ts');
    expect(srcFiles.filter((file) => under(file, 'src/server/')).length).toBeGreaterThan(0);
    expect(browserFiles.length).toBeGreaterThan(0);
    // An import this file cannot resolve would slip past every rule below.
    const unresolved = [...imports.values()].flat().filter((i) => /^(\.|@\/)/.test(i.specifier) && !i.target);
    expect(unresolved.map((i) => `${where(i)} '${i.specifier}'`)).toEqual([]);
  });

  it('has no import circles in src/, type-only imports included', () => {
    const edges = new Map(srcFiles.map((file) => [file, imports.get(file)!.flatMap((i) => (under(i.target, 'src/') ? [i.target!] : []))]));
    const report = circles(srcFiles, edges).map((component) => {
      const members = new Set(component);
      const links = component.flatMap((file) =>
        imports
          .get(file)!
          .filter((i) => members.has(i.target!))
          .map((i) => `    ${where(i)} imports ${i.target}${i.typeOnly ? ' (type-only)' : ''}`),
      );
      return `circle of ${component.length} files: ${component.join(', ')}\n${links.join('\n')}`;
    });
    assertNone(
      report,
      'Import circles in src/. Break each one by removing one of the imports listed under it: move the shared code ' +
        '(or the shared type) down into a module that both sides import, or pass it in as a parameter. ' +
        'Dependencies point down: server -> domains -> outbox -> lib/db.',
    );
  });

  it('keeps src/server/ out of the domains (src/ outside src/server/, src/app.ts included)', () => {
    const violations = domainFiles.flatMap((file) =>
      imports
        .get(file)!
        .filter((i) => under(i.target, 'src/server/'))
        .map((i) => `${where(i)} imports ${i.target}${i.typeOnly ? ' (type-only)' : ''}`),
    );
    assertNone(
      violations,
      'Domain code imports src/server/. Move what it needs (a type, an error, a helper) out of src/server/ into the ' +
        'domain or a lower module, and have src/server/ import it from there.',
    );
  });

  it('keeps transport packages out of the domains', () => {
    const violations = domainFiles.flatMap((file) =>
      imports
        .get(file)!
        .filter((i) => TRANSPORTS.some((pattern) => pattern.test(i.specifier)))
        .map((i) => `${where(i)} imports '${i.specifier}'${i.typeOnly ? ' (type-only)' : ''}`),
    );
    assertNone(
      violations,
      'Domain code imports a transport package (next, @trpc/*, trpc-to-openapi, next-auth, @modelcontextprotocol/*, ' +
        '@a2a-js/*). Keep the transport in src/server/: the domain returns plain data and its own types, and the ' +
        'server maps them onto the protocol.',
    );
  });

  it('keeps components/ and client/ to client/, components/ and src/contract/', () => {
    const violations = browserFiles.flatMap((file) =>
      imports.get(file)!.flatMap((i) => {
        if (under(i.target, 'app/')) return [`${where(i)} imports ${i.target}: move what it needs into client/ or components/`];
        if (!under(i.target, 'src/') || under(i.target, 'src/contract/')) return [];
        if (i.target === 'src/server/router.ts') {
          return i.typeOnly ? [] : [`${where(i)} imports ${i.target} at run time: write \`import type { AppRouter }\``];
        }
        return [
          `${where(i)} imports ${i.target}${i.typeOnly ? ' (type-only)' : ''}: import it from src/contract/ (move or re-export it there)`,
        ];
      }),
    );
    assertNone(
      violations,
      'Browser code (components/, client/) reaches outside client/, components/ and src/contract/ ' +
        '(the one exception: `import type { AppRouter } from src/server/router`).',
    );
  });

  it('keeps src/contract/ free of the rest of src/, since the browser code imports it', () => {
    const violations = srcFiles
      .filter((file) => under(file, 'src/contract/'))
      .flatMap((file) =>
        imports
          .get(file)!
          .filter((i) => under(i.target, 'src/') && !under(i.target, 'src/contract/'))
          .map((i) => `${where(i)} imports ${i.target}${i.typeOnly ? ' (type-only)' : ''}`),
      );
    assertNone(
      violations,
      'src/contract/ imports server-side code. Move the definition it needs into src/contract/ and have the domain ' +
        'import it from there.',
    );
  });
});
