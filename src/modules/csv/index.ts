import Papa from 'papaparse';
import { ActionInputError, type ActionDefinition, type ModuleDefinition } from '../types';

type Cell = string | number | boolean | null;
type Row = Record<string, Cell>;

const MAX_CSV = 1_048_576;
const MAX_ROWS = 10_000;
const MAX_ERRORS = 100;

const csvInput = { type: 'string', maxLength: MAX_CSV, description: 'CSV text (up to 1 MiB).' };
const delimiterInput = {
  type: 'string',
  maxLength: 1,
  default: '',
  description: 'Field delimiter; empty to auto-detect among , ; tab | (the detected one is reused for CSV output).',
};

/** Numbers (without leading zeros, so ids and zip codes stay strings), booleans and empty -> null. */
function typed(value: string): Cell {
  const v = value.trim();
  if (v === '') return null;
  if (/^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
  if (/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(v) || /^-?0?\.\d+$/.test(v)) {
    const n = Number(v);
    if (Number.isFinite(n) && (Number.isSafeInteger(n) || !/^-?\d+$/.test(v))) return n;
  }
  return value;
}

interface Parsed {
  columns: string[];
  rows: Row[] | Cell[][];
  total: number;
  truncated: boolean;
  delimiter: string;
  errors: { row: number | null; message: string }[];
}

function parseCsv(
  csv: string,
  opts: { header?: boolean; delimiter?: string; dynamic_typing?: boolean; skip_empty_lines?: boolean; max_rows?: number },
): Parsed {
  const { header = true, delimiter = '', dynamic_typing = true, skip_empty_lines = true, max_rows = MAX_ROWS } = opts;
  const result = Papa.parse<string[]>(csv.replace(/^\uFEFF/, ''), {
    header: false,
    delimiter,
    skipEmptyLines: skip_empty_lines ? 'greedy' : false,
    dynamicTyping: false,
    delimitersToGuess: [',', ';', '\t', '|'],
  });
  const fatal = result.errors.find((e) => e.type === 'Delimiter' && csv.includes('\n') && result.data.length === 0);
  if (fatal) throw new ActionInputError(`cannot parse CSV: ${fatal.message}`);
  const cell = dynamic_typing ? typed : (v: string): Cell => v;
  let data = result.data;
  let columns: string[] = [];
  if (header) {
    const raw = data[0] ?? [];
    data = data.slice(1);
    const seen = new Map<string, number>();
    columns = raw.map((h, i) => {
      let name = h.trim() || `column_${i + 1}`;
      const n = seen.get(name) ?? 0;
      seen.set(name, n + 1);
      if (n > 0) name = `${name}_${n + 1}`;
      return name;
    });
  }
  const total = data.length;
  const kept = data.slice(0, max_rows);
  const rows = header
    ? kept.map((r) => {
        const row: Row = {};
        columns.forEach((c, i) => (row[c] = i < r.length ? cell(r[i]!) : null));
        return row;
      })
    : kept.map((r) => r.map(cell));
  const offset = header ? 1 : 0;
  const errors = result.errors
    .slice(0, MAX_ERRORS)
    .map((e) => ({ row: typeof e.row === 'number' ? e.row - offset + 1 : null, message: e.message }));
  if (header) {
    for (let i = 0; i < kept.length && errors.length < MAX_ERRORS; i++) {
      const len = kept[i]!.length;
      if (len > columns.length)
        errors.push({ row: i + 1, message: `row has ${len} fields, expected ${columns.length}; extra fields dropped` });
      else if (len < columns.length)
        errors.push({ row: i + 1, message: `row has ${len} fields, expected ${columns.length}; missing cells are null` });
    }
  }
  return { columns, rows, total, truncated: total > kept.length, delimiter: result.meta.delimiter || ',', errors };
}

function requireHeaderRows(parsed: Parsed): Row[] {
  return parsed.rows as Row[];
}

function checkColumns(parsed: Parsed, names: string[]) {
  for (const name of names) {
    if (!parsed.columns.includes(name))
      throw new ActionInputError(`unknown column "${name}"; columns are: ${parsed.columns.map((c) => JSON.stringify(c)).join(', ')}`);
  }
}

function toCsv(rows: Row[], columns: string[], delimiter: string, header = true, newline = '\n', escapeFormulae = false): string {
  if (rows.length === 0) return header && columns.length ? Papa.unparse([columns], { delimiter, newline }) + newline : '';
  return (
    Papa.unparse(
      { fields: columns, data: rows.map((r) => columns.map((c) => r[c] ?? '')) },
      { delimiter, newline, header, escapeFormulae },
    ) + newline
  );
}

const rowsOutput = {
  type: 'array',
  items: {
    type: 'object',
    additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }] },
  },
};
const errorsOutput = {
  type: 'array',
  maxItems: MAX_ERRORS,
  description: 'Problems found while parsing (unclosed quotes, ragged rows); parsing continues past them.',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['row', 'message'],
    properties: {
      row: { anyOf: [{ type: 'integer' }, { type: 'null' }], description: '1-based data row (header excluded).' },
      message: { type: 'string' },
    },
  },
};

const parse: ActionDefinition = {
  name: 'parse',
  description:
    'Parses CSV text into rows: objects keyed by the header row (default) or arrays of cells. Detects the delimiter, handles quoted fields and newlines in quotes, and converts numbers, booleans and empty cells (null) unless dynamic_typing is false. Returns at most 10,000 rows with a truncated flag.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['csv'],
    properties: {
      csv: csvInput,
      header: { type: 'boolean', default: true, description: 'The first row holds column names; rows become objects.' },
      delimiter: delimiterInput,
      dynamic_typing: {
        type: 'boolean',
        default: true,
        description: 'Convert numbers (not ones with leading zeros), true/false and empty cells (null).',
      },
      skip_empty_lines: { type: 'boolean', default: true, description: 'Ignore blank lines.' },
      max_rows: { type: 'integer', minimum: 1, maximum: MAX_ROWS, default: MAX_ROWS, description: 'Return at most this many rows.' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['rows', 'columns', 'row_count', 'total_rows', 'truncated', 'delimiter', 'errors'],
    properties: {
      rows: {
        type: 'array',
        items: {
          oneOf: [
            rowsOutput.items,
            { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }] } },
          ],
        },
      },
      columns: { type: 'array', items: { type: 'string' }, description: 'Column names (empty when header is false).' },
      row_count: { type: 'integer', minimum: 0, description: 'Rows returned.' },
      total_rows: { type: 'integer', minimum: 0, description: 'Data rows in the input.' },
      truncated: { type: 'boolean' },
      delimiter: { type: 'string' },
      errors: errorsOutput,
    },
  },
  examples: [
    {
      input: { csv: 'name,age,zip,member\nAnn,31,02134,true\n"Smith, Bob",45,,false\n' },
      output: {
        rows: [
          { name: 'Ann', age: 31, zip: '02134', member: true },
          { name: 'Smith, Bob', age: 45, zip: null, member: false },
        ],
        columns: ['name', 'age', 'zip', 'member'],
        row_count: 2,
        total_rows: 2,
        truncated: false,
        delimiter: ',',
        errors: [],
      },
    },
    {
      input: { csv: 'a;b\n1;2\n3;4', header: false, dynamic_typing: false },
      output: {
        rows: [
          ['a', 'b'],
          ['1', '2'],
          ['3', '4'],
        ],
        columns: [],
        row_count: 3,
        total_rows: 3,
        truncated: false,
        delimiter: ';',
        errors: [],
      },
    },
  ],
  run(input: {
    csv: string;
    header?: boolean;
    delimiter?: string;
    dynamic_typing?: boolean;
    skip_empty_lines?: boolean;
    max_rows?: number;
  }) {
    const p = parseCsv(input.csv, input);
    return {
      rows: p.rows,
      columns: p.columns,
      row_count: p.rows.length,
      total_rows: p.total,
      truncated: p.truncated,
      delimiter: p.delimiter,
      errors: p.errors,
    };
  },
};

function cellText(v: unknown): string | number | boolean {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return v as string | number | boolean;
}

const stringify: ActionDefinition = {
  name: 'stringify',
  description:
    'Writes CSV from rows (objects or arrays). Columns default to every key in order of first appearance; nested values are written as JSON, null as empty. Quotes fields only when needed. Set escape_formulae when the file will be opened in a spreadsheet (guards against CSV injection).',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['rows'],
    properties: {
      rows: {
        type: 'array',
        maxItems: 100_000,
        items: { anyOf: [{ type: 'object' }, { type: 'array' }] },
        description: 'Objects (keys become columns) or arrays of cells; do not mix the two.',
      },
      columns: {
        type: 'array',
        maxItems: 1000,
        items: { type: 'string' },
        description: 'Columns to write, in order (objects only); default: all keys.',
      },
      header: { type: 'boolean', default: true, description: 'Write a header row (objects only).' },
      delimiter: { type: 'string', minLength: 1, maxLength: 1, default: ',' },
      newline: { type: 'string', enum: ['\n', '\r\n'], default: '\n' },
      escape_formulae: {
        type: 'boolean',
        default: false,
        description: 'Prefix cells starting with = + - @ with a quote so spreadsheets do not run them.',
      },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['csv', 'row_count'],
    properties: { csv: { type: 'string' }, row_count: { type: 'integer', minimum: 0 } },
  },
  examples: [
    {
      input: {
        rows: [
          { name: 'Ann', age: 31 },
          { name: 'Smith, Bob', city: 'Oslo', tags: ['a', 'b'] },
        ],
      },
      output: { csv: 'name,age,city,tags\nAnn,31,,\n"Smith, Bob",,Oslo,"[""a"",""b""]"\n', row_count: 2 },
    },
    {
      input: {
        rows: [
          ['x', 'y'],
          [1, 2],
        ],
        delimiter: ';',
      },
      output: { csv: 'x;y\n1;2\n', row_count: 2 },
    },
  ],
  run(input: { rows: unknown[]; columns?: string[]; header?: boolean; delimiter?: string; newline?: string; escape_formulae?: boolean }) {
    const { rows, header = true, delimiter = ',', newline = '\n', escape_formulae = false } = input;
    if (rows.length === 0)
      return { csv: header && input.columns?.length ? toCsv([], input.columns, delimiter, header, newline) : '', row_count: 0 };
    const arrays = rows.filter(Array.isArray).length;
    if (arrays !== 0 && arrays !== rows.length) throw new ActionInputError('rows must be all objects or all arrays');
    if (arrays) {
      const data = (rows as unknown[][]).map((r) => r.map(cellText));
      return { csv: Papa.unparse(data, { delimiter, newline, escapeFormulae: escape_formulae }) + newline, row_count: rows.length };
    }
    let columns = input.columns;
    if (!columns) {
      const seen = new Set<string>();
      for (const r of rows as Record<string, unknown>[]) for (const k of Object.keys(r)) seen.add(k);
      columns = [...seen];
    }
    const data = (rows as Record<string, unknown>[]).map((r) => {
      const row: Row = {};
      for (const c of columns!) row[c] = cellText(r[c]) as Cell;
      return row;
    });
    return { csv: toCsv(data, columns, delimiter, header, newline, escape_formulae), row_count: rows.length };
  },
};

const toJson: ActionDefinition = {
  name: 'to_json',
  description:
    'Converts CSV with a header row into JSON text (an array of objects), ready to save or pass to a tool that expects JSON. Values are typed like parse (numbers, booleans, null). At most 10,000 rows.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['csv'],
    properties: {
      csv: csvInput,
      delimiter: delimiterInput,
      dynamic_typing: {
        type: 'boolean',
        default: true,
        description: 'Convert numbers, booleans and empty cells (null); false keeps every value a string.',
      },
      indent: { type: 'integer', minimum: 0, maximum: 8, default: 0, description: 'Pretty-print indent; 0 for compact JSON.' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['json', 'row_count', 'truncated'],
    properties: { json: { type: 'string' }, row_count: { type: 'integer', minimum: 0 }, truncated: { type: 'boolean' } },
  },
  examples: [
    {
      input: { csv: 'id,name\n1,Ann\n2,Bob' },
      output: { json: '[{"id":1,"name":"Ann"},{"id":2,"name":"Bob"}]', row_count: 2, truncated: false },
    },
  ],
  run(input: { csv: string; delimiter?: string; dynamic_typing?: boolean; indent?: number }) {
    const p = parseCsv(input.csv, { delimiter: input.delimiter, dynamic_typing: input.dynamic_typing });
    return { json: JSON.stringify(p.rows, null, input.indent ?? 0), row_count: p.rows.length, truncated: p.truncated };
  },
};

const round = (n: number) => Math.round(n * 1e6) / 1e6;

const stats: ActionDefinition = {
  name: 'stats',
  description:
    'Profiles each column of a CSV with a header row: inferred type, non-empty count, empty count, distinct values, most frequent values, and for numeric values min, max, mean, median and sum. Use to understand a data set before querying it. Reads up to 10,000 rows.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['csv'],
    properties: {
      csv: csvInput,
      delimiter: delimiterInput,
      columns: { type: 'array', maxItems: 500, items: { type: 'string' }, description: 'Only these columns (default: all).' },
      top: { type: 'integer', minimum: 0, maximum: 50, default: 3, description: 'How many most frequent values to list per column.' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['row_count', 'truncated', 'columns'],
    properties: {
      row_count: { type: 'integer', minimum: 0 },
      truncated: { type: 'boolean', description: 'True when only the first 10,000 rows were profiled.' },
      columns: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'type', 'count', 'empty', 'distinct', 'top_values'],
          properties: {
            name: { type: 'string' },
            type: { type: 'string', enum: ['number', 'boolean', 'string', 'mixed', 'empty'] },
            count: { type: 'integer', minimum: 0, description: 'Non-empty cells.' },
            empty: { type: 'integer', minimum: 0 },
            distinct: { type: 'integer', minimum: 0, description: 'Distinct non-empty values.' },
            min: { type: 'number' },
            max: { type: 'number' },
            mean: { type: 'number' },
            median: { type: 'number' },
            sum: { type: 'number' },
            top_values: {
              type: 'array',
              items: {
                type: 'object',
                additionalProperties: false,
                required: ['value', 'count'],
                properties: {
                  value: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
                  count: { type: 'integer', minimum: 1 },
                },
              },
            },
          },
        },
      },
    },
  },
  examples: [
    {
      input: { csv: 'city,temp,rain\nOslo,12.5,true\nBergen,10,true\nOslo,15.5,\nParis,20,false', top: 2 },
      output: {
        row_count: 4,
        truncated: false,
        columns: [
          {
            name: 'city',
            type: 'string',
            count: 4,
            empty: 0,
            distinct: 3,
            top_values: [
              { value: 'Oslo', count: 2 },
              { value: 'Bergen', count: 1 },
            ],
          },
          {
            name: 'temp',
            type: 'number',
            count: 4,
            empty: 0,
            distinct: 4,
            min: 10,
            max: 20,
            mean: 14.5,
            median: 14,
            sum: 58,
            top_values: [
              { value: 12.5, count: 1 },
              { value: 10, count: 1 },
            ],
          },
          {
            name: 'rain',
            type: 'boolean',
            count: 3,
            empty: 1,
            distinct: 2,
            top_values: [
              { value: true, count: 2 },
              { value: false, count: 1 },
            ],
          },
        ],
      },
    },
  ],
  run(input: { csv: string; delimiter?: string; columns?: string[]; top?: number }) {
    const p = parseCsv(input.csv, { delimiter: input.delimiter });
    const names = input.columns ?? p.columns;
    checkColumns(p, names);
    const rows = requireHeaderRows(p);
    const top = input.top ?? 3;
    const columns = names.map((name) => {
      const counts = new Map<Cell, number>();
      const numbers: number[] = [];
      const types = new Set<string>();
      let empty = 0;
      for (const r of rows) {
        const v = r[name];
        if (v === null || v === undefined || v === '') {
          empty++;
          continue;
        }
        types.add(typeof v);
        if (typeof v === 'number') numbers.push(v);
        counts.set(v, (counts.get(v) ?? 0) + 1);
      }
      const type = types.size === 0 ? 'empty' : types.size > 1 ? 'mixed' : ([...types][0] as string);
      const out: Record<string, unknown> = { name, type, count: rows.length - empty, empty, distinct: counts.size };
      if (numbers.length) {
        const sorted = [...numbers].sort((a, b) => a - b);
        const sum = numbers.reduce((a, b) => a + b, 0);
        const mid = sorted.length >> 1;
        out.min = sorted[0];
        out.max = sorted[sorted.length - 1];
        out.mean = round(sum / numbers.length);
        out.median = sorted.length % 2 ? sorted[mid] : round((sorted[mid - 1]! + sorted[mid]!) / 2);
        out.sum = round(sum);
      }
      out.top_values = [...counts.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, top)
        .map(([value, count]) => ({ value, count }));
      return out;
    });
    return { row_count: rows.length, truncated: p.truncated, columns };
  },
};

const OPERATORS = [
  'equals',
  'not_equals',
  'contains',
  'not_contains',
  'starts_with',
  'ends_with',
  'gt',
  'gte',
  'lt',
  'lte',
  'is_empty',
  'not_empty',
  'regex',
] as const;
type Operator = (typeof OPERATORS)[number];
interface Condition {
  column: string;
  operator: Operator;
  value?: string | number | boolean;
}

function matcher(c: Condition, caseSensitive: boolean): (v: Cell) => boolean {
  const norm = (x: unknown) => (caseSensitive ? String(x ?? '') : String(x ?? '').toLowerCase());
  const needle = norm(c.value);
  const num = typeof c.value === 'number' ? c.value : Number(c.value);
  const needsValue = !['is_empty', 'not_empty'].includes(c.operator);
  if (needsValue && c.value === undefined) throw new ActionInputError(`operator "${c.operator}" needs a value (column "${c.column}")`);
  const cmp = (v: Cell, test: (a: number | string, b: number | string) => boolean) => {
    if (v === null) return false;
    if (typeof v === 'number' && Number.isFinite(num)) return test(v, num);
    return test(norm(v), needle);
  };
  switch (c.operator) {
    case 'equals':
      return (v) => (typeof v === 'number' && Number.isFinite(num) ? v === num : norm(v) === needle);
    case 'not_equals':
      return (v) => !(typeof v === 'number' && Number.isFinite(num) ? v === num : norm(v) === needle);
    case 'contains':
      return (v) => norm(v).includes(needle);
    case 'not_contains':
      return (v) => !norm(v).includes(needle);
    case 'starts_with':
      return (v) => norm(v).startsWith(needle);
    case 'ends_with':
      return (v) => norm(v).endsWith(needle);
    case 'gt':
      return (v) => cmp(v, (a, b) => a > b);
    case 'gte':
      return (v) => cmp(v, (a, b) => a >= b);
    case 'lt':
      return (v) => cmp(v, (a, b) => a < b);
    case 'lte':
      return (v) => cmp(v, (a, b) => a <= b);
    case 'is_empty':
      return (v) => v === null || v === '';
    case 'not_empty':
      return (v) => !(v === null || v === '');
    case 'regex': {
      let re: RegExp;
      try {
        re = new RegExp(String(c.value), caseSensitive ? 'u' : 'iu');
      } catch (e) {
        throw new ActionInputError(`invalid regular expression for column "${c.column}": ${(e as Error).message}`);
      }
      return (v) => re.test(String(v ?? ''));
    }
    default:
      throw new ActionInputError(`unknown operator "${String(c.operator)}"`);
  }
}

const filter: ActionDefinition = {
  name: 'filter',
  description:
    'Keeps the CSV rows that match conditions on columns (equals, contains, starts_with, gt/lt on numbers, is_empty, regex…), combined with all (AND) or any (OR). Returns matching rows as objects, or as CSV text with output "csv". Case-insensitive by default.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['csv', 'conditions'],
    properties: {
      csv: csvInput,
      delimiter: delimiterInput,
      conditions: {
        type: 'array',
        minItems: 1,
        maxItems: 20,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['column', 'operator'],
          properties: {
            column: { type: 'string', description: 'Header name of the column.' },
            operator: { type: 'string', enum: [...OPERATORS] },
            value: {
              anyOf: [{ type: 'string', maxLength: 1000 }, { type: 'number' }, { type: 'boolean' }],
              description: 'Value to compare with (not needed for is_empty/not_empty).',
            },
          },
        },
      },
      match: { type: 'string', enum: ['all', 'any'], default: 'all', description: 'all: every condition must hold; any: at least one.' },
      case_sensitive: { type: 'boolean', default: false },
      output: { type: 'string', enum: ['rows', 'csv'], default: 'rows', description: 'Return objects (rows) or CSV text (csv).' },
      limit: { type: 'integer', minimum: 1, maximum: MAX_ROWS, default: 1000, description: 'Return at most this many matching rows.' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['matched', 'returned', 'total_rows'],
    properties: {
      rows: rowsOutput,
      csv: { type: 'string' },
      matched: { type: 'integer', minimum: 0 },
      returned: { type: 'integer', minimum: 0 },
      total_rows: { type: 'integer', minimum: 0 },
    },
  },
  examples: [
    {
      input: {
        csv: 'name,dept,salary\nAnn,Sales,5200\nBob,IT,6100\nCy,sales,4100',
        conditions: [
          { column: 'dept', operator: 'equals', value: 'sales' },
          { column: 'salary', operator: 'gt', value: 5000 },
        ],
      },
      output: { rows: [{ name: 'Ann', dept: 'Sales', salary: 5200 }], matched: 1, returned: 1, total_rows: 3 },
    },
    {
      input: {
        csv: 'name,email\nAnn,ann@acme.com\nBob,bob@other.org',
        conditions: [{ column: 'email', operator: 'ends_with', value: '@acme.com' }],
        output: 'csv',
      },
      output: { csv: 'name,email\nAnn,ann@acme.com\n', matched: 1, returned: 1, total_rows: 2 },
    },
  ],
  run(input: {
    csv: string;
    delimiter?: string;
    conditions: Condition[];
    match?: string;
    case_sensitive?: boolean;
    output?: string;
    limit?: number;
  }) {
    const p = parseCsv(input.csv, { delimiter: input.delimiter });
    checkColumns(
      p,
      input.conditions.map((c) => c.column),
    );
    const tests = input.conditions.map((c) => ({ column: c.column, test: matcher(c, input.case_sensitive ?? false) }));
    const any = input.match === 'any';
    const matching = requireHeaderRows(p).filter((r) =>
      any ? tests.some((t) => t.test(r[t.column] ?? null)) : tests.every((t) => t.test(r[t.column] ?? null)),
    );
    const rows = matching.slice(0, input.limit ?? 1000);
    const base = { matched: matching.length, returned: rows.length, total_rows: p.rows.length };
    if (input.output === 'csv') return { csv: toCsv(rows, p.columns, p.delimiter), ...base };
    return { rows, ...base };
  },
};

const selectColumns: ActionDefinition = {
  name: 'select_columns',
  description:
    'Keeps only the named CSV columns, in the order given, optionally renaming them. Use to drop unneeded columns or reorder them before handing a CSV on.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['csv', 'columns'],
    properties: {
      csv: csvInput,
      delimiter: delimiterInput,
      columns: {
        type: 'array',
        minItems: 1,
        maxItems: 500,
        items: { type: 'string' },
        description: 'Header names to keep, in output order.',
      },
      rename: {
        type: 'object',
        additionalProperties: { type: 'string' },
        description: 'Map of old name -> new name for the output header.',
      },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['csv', 'row_count', 'truncated'],
    properties: { csv: { type: 'string' }, row_count: { type: 'integer', minimum: 0 }, truncated: { type: 'boolean' } },
  },
  examples: [
    {
      input: { csv: 'id,name,email\n1,Ann,ann@x.io\n2,Bob,bob@x.io', columns: ['email', 'name'], rename: { email: 'contact' } },
      output: { csv: 'contact,name\nann@x.io,Ann\nbob@x.io,Bob\n', row_count: 2, truncated: false },
    },
  ],
  run(input: { csv: string; delimiter?: string; columns: string[]; rename?: Record<string, string> }) {
    const p = parseCsv(input.csv, { delimiter: input.delimiter, dynamic_typing: false });
    checkColumns(p, input.columns);
    const outNames = input.columns.map((c) => input.rename?.[c] ?? c);
    const rows = requireHeaderRows(p).map((r) => Object.fromEntries(input.columns.map((c, i) => [outNames[i]!, r[c] ?? null])) as Row);
    return { csv: toCsv(rows, outNames, p.delimiter), row_count: rows.length, truncated: p.truncated };
  },
};

const sort: ActionDefinition = {
  name: 'sort',
  description:
    'Sorts CSV rows by one or more columns, ascending or descending. Numbers sort numerically, text alphabetically (locale-aware, case-insensitive), empty cells last. Returns CSV text.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['csv', 'by'],
    properties: {
      csv: csvInput,
      delimiter: delimiterInput,
      by: {
        type: 'array',
        minItems: 1,
        maxItems: 10,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['column'],
          properties: { column: { type: 'string' }, descending: { type: 'boolean', default: false } },
        },
        description: 'Sort keys in priority order.',
      },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['csv', 'row_count', 'truncated'],
    properties: { csv: { type: 'string' }, row_count: { type: 'integer', minimum: 0 }, truncated: { type: 'boolean' } },
  },
  examples: [
    {
      input: { csv: 'name,score\nbob,7\nAnn,10\ncy,\ndan,7', by: [{ column: 'score', descending: true }, { column: 'name' }] },
      output: { csv: 'name,score\nAnn,10\nbob,7\ndan,7\ncy,\n', row_count: 4, truncated: false },
    },
  ],
  run(input: { csv: string; delimiter?: string; by: { column: string; descending?: boolean }[] }) {
    const p = parseCsv(input.csv, { delimiter: input.delimiter });
    checkColumns(
      p,
      input.by.map((b) => b.column),
    );
    const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });
    const rows = [...requireHeaderRows(p)].sort((x, y) => {
      for (const { column, descending } of input.by) {
        const a = x[column] ?? null;
        const b = y[column] ?? null;
        if (a === b) continue;
        if (a === null || a === '') return 1;
        if (b === null || b === '') return -1;
        const c = typeof a === 'number' && typeof b === 'number' ? a - b : collator.compare(String(a), String(b));
        if (c !== 0) return descending ? -c : c;
      }
      return 0;
    });
    // Re-read the untyped text so values are written back exactly as they came in.
    const raw = parseCsv(input.csv, { delimiter: input.delimiter, dynamic_typing: false });
    const rawRows = requireHeaderRows(raw);
    const index = new Map(requireHeaderRows(p).map((r, i) => [r, i]));
    return {
      csv: toCsv(
        rows.map((r) => rawRows[index.get(r)!]!),
        p.columns,
        p.delimiter,
      ),
      row_count: rows.length,
      truncated: p.truncated,
    };
  },
};

const mod: ModuleDefinition = {
  name: 'csv',
  version: '1.0.0',
  title: 'CSV tools',
  description:
    'Parse, write and analyse CSV (papaparse): CSV to typed rows or JSON, rows to CSV, per-column statistics, filtering rows by conditions, selecting/renaming columns and sorting. Delimiters are auto-detected; results are capped at 10,000 rows.',
  category: 'data',
  tags: ['csv', 'tsv', 'spreadsheet', 'parse', 'stringify', 'table', 'statistics', 'filter', 'sort', 'columns', 'papaparse'],
  actions: [parse, stringify, toJson, stats, filter, selectColumns, sort],
};

export default mod;
