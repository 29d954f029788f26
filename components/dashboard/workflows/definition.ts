/**
 * The workflow editor's pure parts: checking a text against the definition's JSON Schema (served
 * by the API at /api/schemas/workflow-definition.json, so step kinds added to the API appear
 * without a change here), finding the line of a JSON path in that text, and the run input a
 * workflow's steps read (`{{input.<name>}}`).
 */
import { z } from 'zod';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A problem found in the definition, with where it is. */
export interface DefinitionProblem {
  /** Dotted path in the definition (`steps.2.depends_on`), empty for the whole. */
  path: string;
  message: string;
  /** 1-based line of the text the path starts on, when found. */
  line?: number;
}

/** A checker built from the definition's JSON Schema (zod's converter; it runs without eval). */
export type DefinitionChecker = (value: unknown) => DefinitionProblem[];

export function definitionChecker(schema: JsonObject): DefinitionChecker {
  const parser = z.fromJSONSchema(schema as z.core.JSONSchema.JSONSchema, { registry: z.registry() });
  const hints = patternHints(schema);
  return (value) => {
    const result = parser.safeParse(value);
    if (result.success) return [];
    return withoutEchoes(result.error.issues).flatMap((issue) => problemsOf(issue, [], hints));
  };
}

/** An email field's pattern says again, less plainly, what "Invalid email address" said: one is enough. */
function withoutEchoes(issues: z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  return issues.filter(
    (i) =>
      !(i.code === 'invalid_format' && i.format === 'regex') ||
      !issues.some((o) => o !== i && o.code === 'invalid_format' && o.format !== 'regex' && join(o.path) === join(i.path)),
  );
}

/**
 * A union's issue (a step of one kind or another) stands for its closest branch: the one that
 * does not refuse a fixed value (its `kind`, say), then the one with the fewest problems. When
 * every branch refuses the same value outright, one problem says what would fit there.
 */
function problemsOf(issue: z.core.$ZodIssue, prefix: PropertyKey[], hints: Map<string, string>): DefinitionProblem[] {
  const at = [...prefix, ...issue.path];
  if (issue.code === 'invalid_union' && issue.errors.length) {
    // A value refused by every branch, each wanting something else there (a step's `kind`).
    const refused = (i: z.core.$ZodIssue) => i.code === 'invalid_value' || (i.code === 'invalid_format' && i.format !== 'regex');
    const wanted = (i: z.core.$ZodIssue) =>
      i.code === 'invalid_value' ? i.values.map((v) => JSON.stringify(v)) : i.code === 'invalid_format' ? [`a valid ${i.format}`] : [];
    const places = issue.errors.map((branch) => new Set(branch.filter(refused).map((i) => join(i.path))));
    for (const shared of places[0]!) {
      if (!places.every((set) => set.has(shared))) continue;
      const choices = [
        ...new Set(issue.errors.flatMap((branch) => branch.filter((i) => refused(i) && join(i.path) === shared).flatMap(wanted))),
      ];
      if (choices.length < 2) continue;
      const path = [...at, ...(shared ? shared.split('.') : [])];
      const last = String(path[path.length - 1] ?? '');
      const name = last === '' || /^\d+$/.test(last) ? 'This value' : `“${last}”`;
      return [{ path: join(path), message: `${name} must be ${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}.` }];
    }
    const branches = issue.errors.map((branch) => ({
      fixed: branch.filter((i) => i.code === 'invalid_value').length,
      problems: withoutEchoes(branch).flatMap((i) => problemsOf(i, at, hints)),
    }));
    branches.sort((a, b) => a.fixed - b.fixed || a.problems.length - b.problems.length);
    return branches[0]!.problems;
  }
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({
      path: join([...at, key]),
      message: `“${key}” is not a field here: remove it or check its spelling.`,
    }));
  }
  return [{ path: join(at), message: plainMessage(issue, at, hints) }];
}

const join = (path: PropertyKey[]) => path.map(String).join('.');

/**
 * What a property with a pattern holds, in the schema's own words: its description, by property
 * name and pattern (a pattern alone says little: "How long to sleep, e.g. `15m`" says more).
 */
function patternHints(schema: Json, hints = new Map<string, string>()): Map<string, string> {
  if (Array.isArray(schema)) schema.forEach((s) => patternHints(s, hints));
  else if (isObject(schema)) {
    if (isObject(schema.properties))
      for (const [name, property] of Object.entries(schema.properties))
        if (isObject(property) && typeof property.pattern === 'string' && typeof property.description === 'string')
          hints.set(`${name}\0${property.pattern}`, property.description);
    Object.values(schema).forEach((v) => patternHints(v, hints));
  }
  return hints;
}

function plainMessage(issue: z.core.$ZodIssue, path: PropertyKey[], hints: Map<string, string>): string {
  const name = path.length ? String(path[path.length - 1]) : 'The definition';
  if (issue.code === 'invalid_type' && /received undefined$/.test(issue.message)) return `“${name}” is required (${issue.expected}).`;
  if (issue.code === 'invalid_type') return `${issue.message.replace(/^Invalid input: /, '')}.`.replace(/^e/, 'E');
  if (issue.code === 'invalid_format' && issue.format === 'regex') {
    const hint = hints.get(`${name}\0${issue.pattern?.replace(/^\/|\/$/g, '') ?? ''}`);
    return `“${name}” does not have the expected form ${issue.pattern}.${hint ? ` ${hint.replace(/`/g, '').replace(/\.?$/, '.')}` : ''}`;
  }
  return issue.message;
}

/**
 * Where each value of a JSON text starts: dotted path -> 1-based line (a property's line is its
 * key's). Reads text that JSON.parse accepted; anything else gives what was read before it.
 */
export function jsonLines(text: string): Map<string, number> {
  const lines = new Map<string, number>();
  const starts = [0];
  for (let k = 0; k < text.length; k++) if (text[k] === '\n') starts.push(k + 1);
  const lineAt = (offset: number) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  let i = 0;
  const space = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const string = (): string => {
    const start = i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (path: string, from?: number): void => {
    space();
    lines.set(path, lineAt(from ?? i));
    const c = text[i];
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      space();
      if (text[i] === close) return void i++;
      for (let n = 0; i < text.length; n++) {
        space();
        if (c === '{') {
          const keyAt = i;
          const key = string();
          space();
          i++; // the colon
          value(path ? `${path}.${key}` : key, keyAt);
        } else value(path ? `${path}.${n}` : String(n));
        space();
        if (text[i++] !== ',') return;
      }
      return;
    }
    if (c === '"') return void string();
    while (i < text.length && !/[\s,\]}]/.test(text[i]!)) i++;
  };
  try {
    value('');
  } catch {
    // A text JSON.parse refused: the lines found so far.
  }
  return lines;
}

/** The line a dotted path starts on, or its nearest ancestor's (a missing property: its object's). */
export function lineOf(lines: Map<string, number>, path: string): number | undefined {
  const parts = path ? path.split('.') : [];
  for (let n = parts.length; n >= 0; n--) {
    const line = lines.get(parts.slice(0, n).join('.'));
    if (line !== undefined) return line;
  }
  return undefined;
}

/** The line and column of a JSON.parse error, from its message (V8 names a position). */
export function syntaxProblem(text: string, err: unknown): DefinitionProblem {
  const message = err instanceof Error ? err.message : String(err);
  const position = /position (\d+)/.exec(message);
  const line = position ? text.slice(0, Number(position[1])).split('\n').length : undefined;
  return { path: '', message: `This is not valid JSON: ${message.replace(/^JSON\.parse: /, '')}`, line };
}

/** The editor's verdict on a text: the parsed definition, or its problems (each with its line). */
export function checkDefinition(text: string, checker?: DefinitionChecker): { value?: unknown; problems: DefinitionProblem[] } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { problems: [syntaxProblem(text, err)] };
  }
  if (!isObject(value))
    return { problems: [{ path: '', message: 'The definition must be a JSON object: {"name": …, "steps": […]}.', line: 1 }] };
  if (!checker) return { value, problems: [] };
  const lines = jsonLines(text);
  return { value, problems: checker(value).map((p) => ({ ...p, line: lineOf(lines, p.path) })) };
}

// The reference grammar of step inputs (src/workflows/templates.ts): `{{ input.a.b }}` or
// `{{ steps.<id>.output.x }}`, anywhere in a string.
const REFERENCE = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** Every string inside a value (objects and arrays walked). */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}

/**
 * The run input a workflow's steps read: each top-level name under `{{input.<name>...}}` in the
 * strings of its steps (an action's input, and any other templated field a step kind has), in
 * first-seen order, and whether a step reads the whole input (`{{input}}`).
 */
export function inputNames(steps: readonly unknown[]): { names: string[]; whole: boolean } {
  const names: string[] = [];
  let whole = false;
  for (const s of steps.flatMap(stringsIn))
    for (const m of s.matchAll(REFERENCE)) {
      const parts = m[1]!.split('.');
      if (parts[0] !== 'input' || parts.some((p) => p === '')) continue;
      if (parts.length === 1) whole = true;
      else if (!names.includes(parts[1]!)) names.push(parts[1]!);
    }
  return { names, whole };
}

/**
 * A field's value as sent: JSON that reads as a number, true/false, null, an object, a list or a
 * quoted string is sent as that value; anything else is the text as typed.
 */
export function typedValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The text a field shows for a value: strings as they are (unless they would read as JSON), anything else as JSON. */
export function fieldText(value: unknown): string {
  if (typeof value === 'string') return typedValue(value) === value ? value : JSON.stringify(value);
  return JSON.stringify(value);
}

/** The run input from the form's fields: empty fields are left out. */
export function inputFromFields(values: Record<string, string>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(values)
      .filter(([, v]) => v.trim() !== '')
      .map(([k, v]) => [k, typedValue(v)]),
  );
}
