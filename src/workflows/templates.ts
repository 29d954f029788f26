import { evaluateExpression as evaluateInWorker, parseExpression } from '../executions/expressions';
import type { Services } from '../services';

/**
 * Step inputs are templates: a string holding `{{input.a.b}}` or `{{steps.<id>.output.x}}`
 * references. A string that is exactly one reference takes the referenced value with its JSON
 * type (a number stays a number, an object an object); references inside other text are
 * interpolated (strings as they are, anything else as JSON). `if` and `map` are JSONata
 * expressions over the same context `{ input, steps: { <id>: { output } } }`.
 */
export interface RunContext {
  input: Record<string, unknown>;
  steps: Record<string, { output: unknown }>;
  /** A trigger's input template reads the event that started the run, or the schedule's tick. */
  event?: unknown;
  schedule?: unknown;
}

const REFERENCE = /\{\{\s*([^{}]*?)\s*\}\}/g;
const WHOLE = /^\{\{\s*([^{}]*?)\s*\}\}$/;

/** A parsed reference: `input.*`, `steps.<id>.output.*`, `event.*` or `schedule.*`, with the path below it. */
export type Reference = { root: 'input' | 'event' | 'schedule'; path: string[] } | { root: 'step'; step: string; path: string[] };

export type ReferenceRoot = 'input' | 'steps' | 'event' | 'schedule';
const SPELLING: Record<ReferenceRoot, string> = {
  input: '{{input.x}}',
  steps: '{{steps.<id>.output.x}}',
  event: '{{event.data.x}}',
  schedule: '{{schedule.tick}}',
};

/**
 * The reference a `{{...}}` body names, or a message saying why it names none. Step templates
 * read `input` and `steps`; a trigger's input template reads its `event` or `schedule`.
 */
export function parseReference(body: string, roots: readonly ReferenceRoot[] = ['input', 'steps']): Reference | string {
  const parts = body.split('.');
  const root = parts[0] as ReferenceRoot;
  const valid = !parts.some((p) => p === '') && roots.includes(root) && (root !== 'steps' || (parts.length >= 3 && parts[2] === 'output'));
  if (!valid) return `'{{${body}}}' is not a reference: use ${roots.map((r) => SPELLING[r]).join(' or ')}.`;
  if (root === 'steps') return { root: 'step', step: parts[1]!, path: parts.slice(3) };
  return { root, path: parts.slice(1) };
}

/** Every `{{...}}` body in a template value (strings anywhere inside objects and arrays). */
export function referencesIn(value: unknown): string[] {
  if (typeof value === 'string') return [...value.matchAll(REFERENCE)].map((m) => m[1]!);
  if (Array.isArray(value)) return value.flatMap(referencesIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(referencesIn);
  return [];
}

/**
 * What a JSONata expression reads of the run's `steps`: the ids it names (`steps.<id>`, also as
 * `$$.steps.<id>`, `` steps.`<id>` ``, `$lookup(steps, "<id>")`, `steps ~> $lookup("<id>")`), and
 * `unnamed` when it also reads `steps` without naming a step (`steps.*`, `$lookup(steps, $k)`,
 * `$keys(steps)`, `steps[...]`), which no check on save can resolve.
 */
export interface StepReads {
  ids: string[];
  unnamed: boolean;
}

/** The part of a jsonata syntax tree (`jsonata(e).ast()`) that the walk below reads. */
interface Node {
  type: string;
  value?: unknown;
  steps?: Node[];
  stages?: { expr?: Node }[];
  predicate?: { expr?: Node }[];
  group?: { lhs: [Node, Node][] };
  terms?: { expression: Node }[];
  focus?: string;
  index?: string;
  lhs?: Node | [Node, Node][];
  rhs?: Node;
  expression?: Node;
  expressions?: Node[];
  arguments?: Node[];
  procedure?: Node;
  body?: Node;
  condition?: Node;
  then?: Node;
  else?: Node;
  pattern?: Node;
  update?: Node;
  delete?: Node;
}

/** Step ids a JSONata expression names, and whether it reads `steps` otherwise (see StepReads). */
export function stepsInExpression(expression: string): StepReads {
  const reads: StepReads = { ids: [], unnamed: false };
  walkExpression(parseExpression(expression) as Node, true, reads);
  return reads;
}

const isName = (n: Node | undefined, value?: string): n is Node => n?.type === 'name' && (value === undefined || n.value === value);
/** A step that only names a field: no filter, binding, index or grouping attached. */
const plain = (n: Node) => !n.stages && !n.predicate && !n.group && n.focus === undefined && n.index === undefined;

/**
 * The steps of a path that evaluate against the run's context `{input, steps}` start at `from`:
 * after `$$` (always the context) or `$` (the context where `root` holds), or at 0 where `root`
 * holds; -1 when the path starts elsewhere (inside a filter or a later path step, a name is a
 * field of the current item, not the context's).
 */
function contextStart(path: Node, root: boolean): number {
  const first = path.steps![0]!;
  if (first.type === 'variable' && (first.value === '$' || (first.value === '' && root))) return 1;
  return root ? 0 : -1;
}

/** `steps` itself, the whole object: a path that is exactly `steps` read from the context. */
function isStepsObject(n: Node | undefined, root: boolean): boolean {
  if (n?.type !== 'path' || n.group) return false;
  const from = contextStart(n, root);
  return from >= 0 && n.steps!.length === from + 1 && isName(n.steps![from], 'steps') && plain(n.steps![from]!);
}

/** `$lookup(<steps>, <key>)`: the key's step id, or null when the key is not a string literal. */
function lookedUp(key: Node | undefined): string | null {
  return key?.type === 'string' && typeof key.value === 'string' ? key.value : null;
}

function walkExpression(n: Node | undefined, root: boolean, reads: StepReads): void {
  if (!n || typeof n !== 'object') return;
  const walk = (child: Node | undefined, r = root) => walkExpression(child, r, reads);
  const walkFilters = (filters: { expr?: Node }[] | undefined, r: boolean) => filters?.forEach((f) => walk(f.expr, r));
  // Filters and groupings attached to a non-path value run over that value's items.
  walkFilters(n.predicate, false);
  n.group?.lhs.forEach(([k, v]) => (walk(k, false), walk(v, false)));
  switch (n.type) {
    case 'path': {
      const steps = n.steps!;
      const from = contextStart(n, root);
      // Steps read from the context: the first, and each after a focus binding (`x@$v.y` reads
      // `y` where it read `x`).
      const inContext = (i: number) => from >= 0 && i >= from && steps.slice(from, i).every((step) => step.focus !== undefined);
      steps.forEach((step, i) => {
        const context = inContext(i);
        if (context && isName(step, 'steps')) {
          const next = steps[i + 1];
          if (plain(step) && isName(next) && next.focus === undefined && typeof next.value === 'string') reads.ids.push(next.value);
          else reads.unnamed = true;
        }
        // `$$[...]` filters the context itself; every other filter runs over its step's items.
        walkFilters(step.stages, i < from);
        step.terms?.forEach((t) => walk(t.expression, false));
        if (step.type !== 'name') walk(step, context);
      });
      return;
    }
    case 'function':
    case 'partial': {
      const args = n.arguments ?? [];
      if (n.procedure?.type === 'variable' && n.procedure.value === 'lookup' && args.length === 2 && isStepsObject(args[0], root)) {
        const id = lookedUp(args[1]);
        if (id === null) reads.unnamed = true;
        else reads.ids.push(id);
        walk(args[1]);
        return;
      }
      walk(n.procedure);
      args.forEach((a) => walk(a));
      return;
    }
    case 'apply': {
      const rhs = n.rhs;
      const lhs = n.lhs as Node | undefined;
      if (
        isStepsObject(lhs, root) &&
        rhs?.type === 'function' &&
        rhs.procedure?.type === 'variable' &&
        rhs.procedure.value === 'lookup' &&
        rhs.arguments?.length === 1
      ) {
        const id = lookedUp(rhs.arguments[0]);
        if (id === null) reads.unnamed = true;
        else reads.ids.push(id);
        walk(rhs.arguments[0]);
        return;
      }
      walk(lhs);
      walk(rhs);
      return;
    }
    case 'unary':
      if (Array.isArray(n.lhs)) (n.lhs as [Node, Node][]).forEach(([k, v]) => (walk(k), walk(v)));
      n.expressions?.forEach((e) => walk(e));
      walk(n.expression);
      return;
    case 'binary':
      walk(n.lhs as Node | undefined);
      walk(n.rhs);
      return;
    case 'bind':
      walk(n.rhs);
      return;
    case 'block':
      n.expressions?.forEach((e) => walk(e));
      return;
    case 'condition':
      walk(n.condition);
      walk(n.then);
      walk(n.else);
      return;
    // A function's body reads the context where the function was written.
    case 'lambda':
      walk(n.body);
      return;
    // `| pattern | update |` runs over the value it is applied to.
    case 'transform':
      walk(n.pattern, false);
      walk(n.update, false);
      walk(n.delete, false);
      return;
    default:
      return;
  }
}

/**
 * The value a reference names. Only the value's own data is read: `{{input.constructor}}` or
 * `{{input.__proto__}}` name nothing (not Object's prototype or constructor, which are no JSON
 * and once reached a step's input as a function).
 */
function lookup(context: RunContext, ref: Reference): unknown {
  let value: unknown =
    ref.root === 'step' ? (Object.hasOwn(context.steps, ref.step) ? context.steps[ref.step]!.output : undefined) : context[ref.root];
  for (const key of ref.path) {
    if (value === null || typeof value !== 'object') return undefined;
    if (Array.isArray(value)) value = /^\d+$/.test(key) ? value[Number(key)] : undefined;
    else value = Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
  }
  return value;
}

const ROOTS_OF = (context: RunContext): ReferenceRoot[] => [
  'input',
  'steps',
  ...(context.event === undefined ? [] : ['event' as const]),
  ...(context.schedule === undefined ? [] : ['schedule' as const]),
];

function resolveString(text: string, context: RunContext): unknown {
  const roots = ROOTS_OF(context);
  const whole = WHOLE.exec(text);
  if (whole) {
    const ref = parseReference(whole[1]!, roots);
    return typeof ref === 'string' ? text : lookup(context, ref);
  }
  return text.replace(REFERENCE, (match, body: string) => {
    const ref = parseReference(body, roots);
    if (typeof ref === 'string') return match;
    const value = lookup(context, ref);
    if (value === undefined || value === null) return '';
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

/** The template with every reference replaced; a reference to nothing leaves its key out. */
export function resolveTemplate(value: unknown, context: RunContext): unknown {
  if (typeof value === 'string') return resolveString(value, context);
  if (Array.isArray(value)) return value.map((v) => resolveTemplate(v, context) ?? null);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const resolved = resolveTemplate(v, context);
      if (resolved !== undefined) out[k] = resolved;
    }
    return out;
  }
  return value;
}

/** Checks a JSONata expression's syntax (nothing runs), or throws a readable Error. */
export function compileExpression(expression: string): void {
  try {
    parseExpression(expression);
  } catch (err) {
    throw new Error(`Invalid JSONata expression: ${(err as Error).message}`, { cause: err });
  }
}

/** A `map` or `if` over the run's context, evaluated off the event loop (executions/expressions.ts). */
export async function evaluateExpression(svc: Services, tenantId: string, expression: string, context: RunContext): Promise<unknown> {
  compileExpression(expression);
  try {
    return await evaluateInWorker(svc, tenantId, expression, context);
  } catch (err) {
    throw new Error(`The JSONata expression failed: ${(err as Error).message}`, { cause: err });
  }
}

/** An `if` condition, with JSONata's own truthiness ($boolean). */
export async function evaluateCondition(svc: Services, tenantId: string, expression: string, context: RunContext): Promise<boolean> {
  return (await evaluateExpression(svc, tenantId, `$boolean((${expression}))`, context)) === true;
}
