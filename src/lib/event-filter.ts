/**
 * Webhook subscription filters: a small expression language over an event's envelope
 * (docs/webhooks.md, Filters), e.g. `event == "execution.failed" && data.module == "http"`.
 *
 *   expr    := or
 *   or      := and ("||" and)*
 *   and     := not ("&&" not)*
 *   not     := "!" not | compare            (looser than comparisons: `!a == 1` is `!(a == 1)`)
 *   compare := operand (("==" | "!=" | "<" | "<=" | ">" | ">=") operand | "in" list)?
 *   list    := "[" (literal ("," literal)*)? "]" | path
 *   operand := literal | path | "(" expr ")"
 *   path    := ("event" | "data") ("." (name | index))*
 *   literal := "string" | 'string' | number | true | false | null
 *
 * A hand-written parser rather than a library: JSONata (used for workflow conditions) has
 * another syntax (`=`, `and`) and can run away (regular expressions, `$pad`), so it runs in the
 * worker pool, which the delivery path of every event cannot afford; JMESPath reads "..." as a
 * field name. This one compiles to closures, never evaluates code, reads only own properties of
 * the event's JSON (no prototype), and is bounded: FILTER_MAX_LENGTH characters, FILTER_MAX_DEPTH
 * nesting, so evaluation is linear in the filter's size.
 */
import { WEBHOOK_FILTER_MAX_LENGTH } from '../contract/limits';

export const FILTER_MAX_LENGTH = WEBHOOK_FILTER_MAX_LENGTH;
export const FILTER_MAX_DEPTH = 32;
const MAX_LIST = 100;
const MAX_PATH = 16;

/** What a filter reads: the envelope's `event` (the kind) and `data`. */
export interface FilterSubject {
  type: string;
  data: unknown;
}

type Value = string | number | boolean | null | object;
type Node = (subject: FilterSubject) => Value;

/** A filter that does not parse: `position` is the 0-based offset of the character at fault. */
export class FilterSyntaxError extends Error {
  constructor(
    readonly reason: string,
    readonly position: number,
  ) {
    super(`${reason} (at position ${position})`);
    this.name = 'FilterSyntaxError';
  }
}

type Token =
  | { kind: 'op'; value: string; at: number }
  | { kind: 'string' | 'number' | 'name'; value: string; at: number }
  | { kind: 'end'; value: ''; at: number };

const OPERATORS = ['==', '!=', '<=', '>=', '&&', '||', '<', '>', '!', '(', ')', '[', ']', ',', '.'];

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    if (c === '"' || c === "'") {
      const start = i;
      let value = '';
      i++;
      for (;;) {
        if (i >= text.length) throw new FilterSyntaxError('unterminated string', start);
        const ch = text[i]!;
        if (ch === c) break;
        if (ch === '\\') {
          const next = text[i + 1];
          const simple: Record<string, string> = { '"': '"', "'": "'", '\\': '\\', '/': '/', n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' };
          if (next !== undefined && next in simple) {
            value += simple[next];
            i += 2;
            continue;
          }
          if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
            value += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
            i += 6;
            continue;
          }
          throw new FilterSyntaxError('invalid escape in a string', i);
        }
        value += ch;
        i++;
      }
      i++;
      tokens.push({ kind: 'string', value, at: start });
      continue;
    }
    // After a '.', digits are an array index (`data.items.0.name`), not a decimal number.
    const afterDot = tokens.at(-1)?.kind === 'op' && tokens.at(-1)?.value === '.';
    const number = (afterDot ? /^\d+/ : /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/).exec(text.slice(i, i + 64));
    if (number && (c === '-' || (c >= '0' && c <= '9'))) {
      tokens.push({ kind: 'number', value: number[0], at: i });
      i += number[0].length;
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i, i + 256));
    if (name) {
      tokens.push({ kind: 'name', value: name[0], at: i });
      i += name[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => text.startsWith(o, i));
    if (op) {
      tokens.push({ kind: 'op', value: op, at: i });
      i += op.length;
      continue;
    }
    if (c === '=') throw new FilterSyntaxError("unexpected '=': compare with '=='", i);
    if (c === '&' || c === '|') throw new FilterSyntaxError(`unexpected '${c}': use '${c}${c}'`, i);
    throw new FilterSyntaxError(`unexpected character '${c}'`, i);
  }
  tokens.push({ kind: 'end', value: '', at: text.length });
  return tokens;
}

const own = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

/** JSON truthiness as most languages have it: false, null (and a missing field), 0 and "" are false. */
const truthy = (v: Value): boolean => v !== false && v !== null && v !== 0 && v !== '';

const isScalar = (v: Value): v is string | number | boolean | null => v === null || typeof v !== 'object';

/** Equality of JSON scalars (no coercion: 1 is not "1"); objects and arrays equal nothing. */
const equal = (a: Value, b: Value): boolean => isScalar(a) && isScalar(b) && a === b;

/** Numbers with numbers and strings with strings (ISO timestamps order as strings); anything else is false. */
function ordered(a: Value, b: Value, test: (sign: number) => boolean): boolean {
  if (typeof a === 'number' && typeof b === 'number') return test(a < b ? -1 : a > b ? 1 : 0);
  if (typeof a === 'string' && typeof b === 'string') return test(a < b ? -1 : a > b ? 1 : 0);
  return false;
}

const COMPARISONS: Record<string, (a: Value, b: Value) => boolean> = {
  '==': equal,
  '!=': (a, b) => !equal(a, b),
  '<': (a, b) => ordered(a, b, (s) => s < 0),
  '<=': (a, b) => ordered(a, b, (s) => s <= 0),
  '>': (a, b) => ordered(a, b, (s) => s > 0),
  '>=': (a, b) => ordered(a, b, (s) => s >= 0),
};

class Parser {
  private i = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  parse(): Node {
    const node = this.or();
    const t = this.peek();
    if (t.kind !== 'end') throw new FilterSyntaxError(`unexpected ${describe(t)}: expected '&&', '||' or the end`, t.at);
    return node;
  }

  private peek(): Token {
    return this.tokens[this.i]!;
  }

  private next(): Token {
    return this.tokens[this.i++]!;
  }

  private isOp(value: string): boolean {
    const t = this.peek();
    return t.kind === 'op' && t.value === value;
  }

  private expectOp(value: string, what: string): void {
    const t = this.next();
    if (t.kind !== 'op' || t.value !== value) throw new FilterSyntaxError(`expected '${value}' ${what}, found ${describe(t)}`, t.at);
  }

  private nest<T>(at: number, parse: () => T): T {
    if (++this.depth > FILTER_MAX_DEPTH) throw new FilterSyntaxError(`nested more than ${FILTER_MAX_DEPTH} levels deep`, at);
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  private or(): Node {
    const terms = [this.and()];
    while (this.isOp('||')) {
      this.next();
      terms.push(this.and());
    }
    if (terms.length === 1) return terms[0]!;
    return (s) => terms.some((t) => truthy(t(s)));
  }

  private and(): Node {
    const terms = [this.not()];
    while (this.isOp('&&')) {
      this.next();
      terms.push(this.not());
    }
    if (terms.length === 1) return terms[0]!;
    return (s) => terms.every((t) => truthy(t(s)));
  }

  private not(): Node {
    if (this.isOp('!')) {
      const at = this.next().at;
      const inner = this.nest(at, () => this.not());
      return (s) => !truthy(inner(s));
    }
    return this.compare();
  }

  private compare(): Node {
    const left = this.operand();
    const t = this.peek();
    let node: Node;
    if (t.kind === 'op' && t.value in COMPARISONS) {
      this.next();
      const right = this.operand();
      const test = COMPARISONS[t.value]!;
      node = (s) => test(left(s), right(s));
    } else if (t.kind === 'name' && t.value === 'in') {
      this.next();
      node = this.membership(left);
    } else return left;
    const after = this.peek();
    if ((after.kind === 'op' && after.value in COMPARISONS) || (after.kind === 'name' && after.value === 'in')) {
      throw new FilterSyntaxError(`comparisons do not chain: join them with '&&' or use parentheses`, after.at);
    }
    return node;
  }

  private membership(left: Node): Node {
    if (!this.isOp('[')) {
      const t = this.peek();
      if (t.kind !== 'name') throw new FilterSyntaxError(`expected a list [..] or a field after 'in', found ${describe(t)}`, t.at);
      const list = this.path();
      return (s) => {
        const value = left(s);
        const items = list(s);
        return Array.isArray(items) && items.some((item: Value) => equal(value, item));
      };
    }
    const open = this.next().at;
    const items: Value[] = [];
    if (!this.isOp(']')) {
      for (;;) {
        const t = this.peek();
        const literal = this.literal();
        if (literal === undefined) throw new FilterSyntaxError(`a list holds literals only; found ${describe(t)}`, t.at);
        items.push(literal);
        if (items.length > MAX_LIST) throw new FilterSyntaxError(`a list holds at most ${MAX_LIST} values`, t.at);
        if (!this.isOp(',')) break;
        this.next();
      }
    }
    this.expectOp(']', `to close the list opened at position ${open}`);
    const set = new Set(items);
    return (s) => {
      const value = left(s);
      return isScalar(value) && set.has(value);
    };
  }

  private operand(): Node {
    const t = this.peek();
    if (t.kind === 'op' && t.value === '(') {
      this.next();
      const inner = this.nest(t.at, () => this.or());
      this.expectOp(')', `to close the parenthesis opened at position ${t.at}`);
      return inner;
    }
    const literal = this.literal();
    if (literal !== undefined) return () => literal;
    if (t.kind === 'name') return this.path();
    throw new FilterSyntaxError(`expected a value, found ${describe(t)}`, t.at);
  }

  /** A literal at the cursor (consumed), or undefined (nothing consumed). */
  private literal(): Value | undefined {
    const t = this.peek();
    if (t.kind === 'string') {
      this.next();
      return t.value;
    }
    if (t.kind === 'number') {
      this.next();
      const n = Number(t.value);
      if (!Number.isFinite(n)) throw new FilterSyntaxError(`number out of range`, t.at);
      return n;
    }
    if (t.kind === 'name' && (t.value === 'true' || t.value === 'false' || t.value === 'null')) {
      this.next();
      return t.value === 'null' ? null : t.value === 'true';
    }
    return undefined;
  }

  private path(): Node {
    const root = this.next();
    if (root.value !== 'event' && root.value !== 'data') {
      throw new FilterSyntaxError(`unknown field '${root.value}': a filter reads 'event' and 'data.<field>'`, root.at);
    }
    const segments: string[] = [];
    while (this.isOp('.')) {
      const dot = this.next();
      const t = this.next();
      const index = t.kind === 'number' && /^(0|[1-9]\d*)$/.test(t.value);
      if (t.kind !== 'name' && !index) throw new FilterSyntaxError(`expected a field name after '.', found ${describe(t)}`, t.at);
      if (segments.length >= MAX_PATH) throw new FilterSyntaxError(`a field path has at most ${MAX_PATH} parts`, dot.at);
      segments.push(t.value);
    }
    if (root.value === 'event') {
      if (segments.length > 0) throw new FilterSyntaxError(`'event' is the event kind (a string) and has no fields`, root.at);
      return (s) => s.type;
    }
    return (s) => {
      let v: unknown = s.data;
      for (const key of segments) {
        if (v === null || typeof v !== 'object' || !own(v, key)) return null;
        v = (v as Record<string, unknown>)[key];
      }
      return v === undefined ? null : (v as Value);
    };
  }
}

function describe(t: Token): string {
  if (t.kind === 'end') return 'the end of the filter';
  if (t.kind === 'string') return `the string ${JSON.stringify(t.value)}`;
  return `'${t.value}'`;
}

/** A compiled filter: true when the event matches. */
export type EventFilter = (subject: FilterSubject) => boolean;

/** Compiles a filter; throws FilterSyntaxError with the position and reason when it does not parse. */
export function compileFilter(text: string): EventFilter {
  if (text.length > FILTER_MAX_LENGTH)
    throw new FilterSyntaxError(`a filter has at most ${FILTER_MAX_LENGTH} characters`, FILTER_MAX_LENGTH);
  if (text.trim() === '') throw new FilterSyntaxError('the filter is empty (use null for none)', 0);
  const node = new Parser(tokenize(text)).parse();
  return (subject) => truthy(node(subject));
}

/** Compiled filters by text: each subscription's filter is compiled once per process, not per event. */
const CACHE_SIZE = 1000;
const compiled = new Map<string, EventFilter>();

function cachedFilter(text: string): EventFilter {
  let filter = compiled.get(text);
  if (filter) return filter;
  try {
    filter = compileFilter(text);
  } catch {
    // Filters are validated when saved; one that no longer parses would hide events silently, so it matches all.
    filter = () => true;
  }
  if (compiled.size >= CACHE_SIZE) compiled.delete(compiled.keys().next().value!);
  compiled.set(text, filter);
  return filter;
}

/**
 * Whether a subscription takes an event by its filter (its event kinds are checked apart): true
 * without a filter. For every path that creates deliveries of recorded events: new events
 * (src/outbox/deliveries.ts deliveryTargets), replay, recover.
 */
export function matchesFilter(subscription: { filter?: string | null }, event: FilterSubject): boolean {
  return subscription.filter == null || cachedFilter(subscription.filter)(event);
}
