import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';
import { isAlias, LineCounter, parseAllDocuments, stringify, visit, type Document, type YAMLError } from 'yaml';
import { anyJson } from '../json-schema';
import { ActionInputError, type ActionDefinition, type ModuleDefinition } from '../types';

const MAX_TEXT = 1_000_000;
const MAX_ALIASES = 1000;

function toJson(value: unknown): unknown {
  if (value === undefined) return null;
  const text = JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));
  return text === undefined ? null : JSON.parse(text);
}

interface Problem {
  message: string;
  line: number | null;
  column: number | null;
  code: string;
}

function yamlProblem(e: YAMLError): Problem {
  const pos = e.linePos?.[0];
  return {
    message: e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, ''),
    line: pos?.line ?? null,
    column: pos?.col ?? null,
    code: e.code,
  };
}

function parseYaml(text: string, lineCounter?: LineCounter): Document.Parsed[] {
  const docs = parseAllDocuments(text, { prettyErrors: true, uniqueKeys: true, strict: true, merge: true, lineCounter });
  // An empty stream parses to an empty list; a stream of several documents with a fatal error to an EmptyStream-like object.
  return Array.isArray(docs) ? (docs as Document.Parsed[]) : [];
}

/** Aliases that point to no anchor (found only when resolving, so they are not in doc.errors). */
function unresolvedAliases(doc: Document.Parsed, lc: LineCounter): Problem[] {
  const out: Problem[] = [];
  visit(doc, {
    Alias(_key, node) {
      if (isAlias(node) && node.resolve(doc) === undefined) {
        const pos = node.range ? lc.linePos(node.range[0]) : undefined;
        out.push({
          message: `Unresolved alias (the first anchor must be set before use): *${node.source}`,
          line: pos?.line ?? null,
          column: pos?.col ?? null,
          code: 'BAD_ALIAS',
        });
      }
    },
  });
  return out;
}

function docToJs(doc: Document.Parsed): unknown {
  try {
    return toJson(doc.toJS({ maxAliasCount: MAX_ALIASES }));
  } catch (e) {
    throw new ActionInputError(`cannot convert YAML: ${(e as Error).message}`);
  }
}

function where(p: Problem): string {
  return p.line ? ` (line ${p.line}, column ${p.column})` : '';
}

const problemSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['message', 'line', 'column', 'code'],
  properties: {
    message: { type: 'string' },
    line: { anyOf: [{ type: 'integer' }, { type: 'null' }], description: '1-based line.' },
    column: { anyOf: [{ type: 'integer' }, { type: 'null' }], description: '1-based column.' },
    code: { type: 'string', description: 'Parser error code.' },
  },
};

const yamlToJson: ActionDefinition = {
  name: 'yaml_to_json',
  description:
    'Parses YAML (1.2, e.g. a config file, OpenAPI spec or front matter) into JSON. Multi-document streams (---) need all_documents. Duplicate keys and syntax errors are rejected with line and column. Alias expansion is bounded (no billion-laughs).',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['yaml'],
    properties: {
      yaml: { type: 'string', maxLength: MAX_TEXT, description: 'YAML text.' },
      all_documents: { type: 'boolean', default: false, description: 'Return every document of a multi-document stream as an array.' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['data'],
    properties: { data: anyJson('The parsed value, any JSON value (an array of documents with all_documents).') },
  },
  examples: [
    {
      input: {
        yaml: 'name: app\nversion: 1.2\nenabled: true\nports:\n  - 80\n  - 443\ndefaults: &d\n  retries: 3\nprod:\n  <<: *d\n  host: example.com\nempty:\n',
      },
      output: {
        data: {
          name: 'app',
          version: 1.2,
          enabled: true,
          ports: [80, 443],
          defaults: { retries: 3 },
          prod: { retries: 3, host: 'example.com' },
          empty: null,
        },
      },
    },
    { input: { yaml: 'a: 1\n---\na: 2\n', all_documents: true }, output: { data: [{ a: 1 }, { a: 2 }] } },
  ],
  run({ yaml, all_documents = false }: { yaml: string; all_documents?: boolean }) {
    const docs = parseYaml(yaml);
    for (const doc of docs) {
      if (doc.errors.length) {
        const p = yamlProblem(doc.errors[0]!);
        throw new ActionInputError(`invalid YAML: ${p.message}${where(p)}`);
      }
    }
    if (all_documents) return { data: docs.map(docToJs) };
    if (docs.length > 1) throw new ActionInputError(`the YAML holds ${docs.length} documents; set all_documents to true to get them all`);
    return { data: docs[0] ? docToJs(docs[0]) : null };
  },
};

const jsonToYaml: ActionDefinition = {
  name: 'json_to_yaml',
  description:
    'Serialises JSON data to YAML (block style, strings quoted only when needed). Use to write config files, Kubernetes manifests or front matter from data.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['data'],
    properties: {
      data: anyJson('The value to convert, any JSON value.'),
      indent: { type: 'integer', minimum: 1, maximum: 8, default: 2 },
      sort_keys: { type: 'boolean', default: false, description: 'Sort mapping keys alphabetically.' },
      line_width: {
        type: 'integer',
        minimum: 0,
        maximum: 1000,
        default: 0,
        description: 'Fold long strings at this width; 0 never folds.',
      },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['yaml'],
    properties: { yaml: { type: 'string' } },
  },
  examples: [
    {
      input: { data: { name: 'app', ports: [80, 443], env: { DEBUG: 'false', NOTE: 'a: b' }, tags: [] } },
      output: { yaml: 'name: app\nports:\n  - 80\n  - 443\nenv:\n  DEBUG: "false"\n  NOTE: "a: b"\ntags: []\n' },
    },
  ],
  run({
    data,
    indent = 2,
    sort_keys = false,
    line_width = 0,
  }: {
    data: unknown;
    indent?: number;
    sort_keys?: boolean;
    line_width?: number;
  }) {
    return { yaml: stringify(data, { indent, sortMapEntries: sort_keys, lineWidth: line_width, aliasDuplicateObjects: false }) };
  },
};

const xmlToJson: ActionDefinition = {
  name: 'xml_to_json',
  description:
    'Parses XML (e.g. an RSS feed, SOAP response or sitemap) into JSON: elements become keys, repeated elements arrays, attributes keys with a prefix ("@_id"), mixed text "#text". Malformed XML is rejected with line and column. Entity expansion is limited.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['xml'],
    properties: {
      xml: { type: 'string', maxLength: MAX_TEXT, description: 'XML text.' },
      ignore_attributes: { type: 'boolean', default: false, description: 'Drop attributes.' },
      attribute_prefix: { type: 'string', maxLength: 10, default: '@_', description: 'Prefix for attribute keys.' },
      parse_values: {
        type: 'boolean',
        default: true,
        description: 'Convert numeric and boolean text to numbers/booleans (leading-zero numbers stay strings).',
      },
      always_array: {
        type: 'array',
        maxItems: 100,
        items: { type: 'string' },
        description: 'Element names that are always arrays, even when they occur once (e.g. ["item"]).',
      },
      remove_namespace_prefix: { type: 'boolean', default: false, description: 'Turn "ns:tag" into "tag".' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['data'],
    properties: { data: { type: 'object' } },
  },
  examples: [
    {
      input: {
        xml: '<?xml version="1.0"?><catalog><book id="b1" lang="en"><title>XML &amp; You</title><price>29.99</price></book><book id="b2"><title>Zip</title><isbn>0012</isbn></book></catalog>',
      },
      output: {
        data: {
          catalog: {
            book: [
              { title: 'XML & You', price: 29.99, '@_id': 'b1', '@_lang': 'en' },
              { title: 'Zip', isbn: '0012', '@_id': 'b2' },
            ],
          },
        },
      },
    },
    {
      input: { xml: '<rss><channel><item><title>One</title></item></channel></rss>', always_array: ['item'] },
      output: { data: { rss: { channel: { item: [{ title: 'One' }] } } } },
    },
  ],
  run(input: {
    xml: string;
    ignore_attributes?: boolean;
    attribute_prefix?: string;
    parse_values?: boolean;
    always_array?: string[];
    remove_namespace_prefix?: boolean;
  }) {
    const {
      xml,
      ignore_attributes = false,
      attribute_prefix = '@_',
      parse_values = true,
      always_array = [],
      remove_namespace_prefix = false,
    } = input;
    const check = XMLValidator.validate(xml, { allowBooleanAttributes: true });
    if (check !== true) throw new ActionInputError(`invalid XML: ${check.err.msg} (line ${check.err.line}, column ${check.err.col})`);
    const arrays = new Set(always_array);
    const parser = new XMLParser({
      ignoreAttributes: ignore_attributes,
      attributeNamePrefix: attribute_prefix,
      parseTagValue: parse_values,
      parseAttributeValue: parse_values,
      allowBooleanAttributes: true,
      ignoreDeclaration: true,
      ignorePiTags: true,
      removeNSPrefix: remove_namespace_prefix,
      numberParseOptions: { hex: false, leadingZeros: false, eNotation: true },
      isArray: (name, _path, _leaf, isAttribute) => !isAttribute && arrays.has(name),
    });
    try {
      return { data: toJson(parser.parse(xml)) };
    } catch (e) {
      throw new ActionInputError(`cannot parse XML: ${(e as Error).message}`);
    }
  },
};

const NAME = /^[A-Za-z_][\w.-]*(:[A-Za-z_][\w.-]*)?$/;

const jsonToXml: ActionDefinition = {
  name: 'json_to_xml',
  description:
    'Builds XML from JSON: keys become elements, arrays repeat the element, keys with the attribute prefix ("@_id") become attributes and "#text" the text content. Values are escaped. Wraps the result in a root element when the data does not have exactly one top-level key.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['data'],
    properties: {
      data: { anyOf: [{ type: 'object' }, { type: 'array' }], description: 'Object to convert (same shape xml_to_json produces).' },
      root: { type: 'string', maxLength: 100, description: 'Root element name; default: the single top-level key, else "root".' },
      attribute_prefix: { type: 'string', maxLength: 10, default: '@_' },
      indent: { type: 'integer', minimum: 0, maximum: 8, default: 2, description: 'Spaces per level; 0 for one line.' },
      declaration: { type: 'boolean', default: true, description: 'Start with <?xml version="1.0" encoding="UTF-8"?>.' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['xml'],
    properties: { xml: { type: 'string' } },
  },
  examples: [
    {
      input: {
        data: {
          catalog: {
            book: [
              { '@_id': 'b1', title: 'XML & You', price: 29.99 },
              { '@_id': 'b2', title: 'Zip' },
            ],
          },
        },
      },
      output: {
        xml: '<?xml version="1.0" encoding="UTF-8"?>\n<catalog>\n  <book id="b1">\n    <title>XML &amp; You</title>\n    <price>29.99</price>\n  </book>\n  <book id="b2">\n    <title>Zip</title>\n  </book>\n</catalog>\n',
      },
    },
    {
      input: { data: { a: 1, b: [true, false] }, root: 'flags', indent: 0, declaration: false },
      output: { xml: '<flags><a>1</a><b>true</b><b>false</b></flags>' },
    },
  ],
  run(input: { data: unknown; root?: string; attribute_prefix?: string; indent?: number; declaration?: boolean }) {
    const { data, attribute_prefix = '@_', indent = 2, declaration = true } = input;
    let root = input.root;
    let body: unknown = data;
    const keys =
      !Array.isArray(data) && data && typeof data === 'object'
        ? Object.keys(data).filter((k) => !k.startsWith(attribute_prefix) && !k.startsWith('?'))
        : [];
    if (!root) {
      const only = keys.length === 1 ? (data as Record<string, unknown>)[keys[0]!] : undefined;
      if (keys.length === 1 && !Array.isArray(only)) root = undefined;
      else root = 'root';
    }
    if (root) {
      if (!NAME.test(root)) throw new ActionInputError(`"${root}" is not a valid XML element name`);
      body = { [root]: Array.isArray(data) ? { item: data } : data };
    }
    const checkNames = (v: unknown, path: string) => {
      if (Array.isArray(v)) return v.forEach((x, i) => checkNames(x, `${path}[${i}]`));
      if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          const name = k.startsWith(attribute_prefix) ? k.slice(attribute_prefix.length) : k;
          if (k !== '#text' && !k.startsWith('?') && !NAME.test(name))
            throw new ActionInputError(`"${k}" at ${path || 'the top level'} is not a valid XML name`);
          checkNames(x, path ? `${path}.${k}` : k);
        }
      }
    };
    checkNames(body, '');
    const builder = new XMLBuilder({
      ignoreAttributes: false,
      attributeNamePrefix: attribute_prefix,
      format: indent > 0,
      indentBy: ' '.repeat(indent),
      suppressBooleanAttributes: false,
      processEntities: true,
    });
    const xml = builder.build(body) as string;
    return { xml: (declaration ? `<?xml version="1.0" encoding="UTF-8"?>${indent > 0 ? '\n' : ''}` : '') + xml };
  },
};

const validateYaml: ActionDefinition = {
  name: 'validate_yaml',
  description:
    'Checks that text is well-formed YAML without converting it: returns valid, the number of documents, and every error and warning with line and column (syntax errors, bad indentation, duplicate keys, unresolved aliases). Use before committing a config file.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['yaml'],
    properties: { yaml: { type: 'string', maxLength: MAX_TEXT, description: 'YAML text.' } },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['valid', 'documents', 'errors', 'warnings'],
    properties: {
      valid: { type: 'boolean' },
      documents: { type: 'integer', minimum: 0 },
      errors: { type: 'array', items: problemSchema },
      warnings: { type: 'array', items: problemSchema },
    },
  },
  examples: [
    { input: { yaml: 'name: app\nports: [80, 443]\n' }, output: { valid: true, documents: 1, errors: [], warnings: [] } },
    {
      input: { yaml: 'name: app\nname: other\nlist:\n  - a\n - b\n' },
      output: {
        valid: false,
        documents: 1,
        errors: [
          { message: 'Map keys must be unique', line: 2, column: 1, code: 'DUPLICATE_KEY' },
          { message: 'A block sequence may not be used as an implicit map key', line: 5, column: 1, code: 'BLOCK_AS_IMPLICIT_KEY' },
          { message: 'Implicit keys need to be on a single line', line: 5, column: 2, code: 'MULTILINE_IMPLICIT_KEY' },
          { message: 'Implicit map keys need to be followed by map values', line: 5, column: 2, code: 'MISSING_CHAR' },
        ],
        warnings: [],
      },
    },
  ],
  run({ yaml }: { yaml: string }) {
    const lc = new LineCounter();
    const docs = parseYaml(yaml, lc);
    const errors = docs.flatMap((d) => [...d.errors.map(yamlProblem), ...(d.errors.length ? [] : unresolvedAliases(d, lc))]).slice(0, 100);
    const warnings = docs.flatMap((d) => d.warnings.map(yamlProblem)).slice(0, 100);
    return { valid: errors.length === 0, documents: docs.length, errors, warnings };
  },
};

const validateXml: ActionDefinition = {
  name: 'validate_xml',
  description:
    'Checks that text is well-formed XML (matching tags, quoted attributes, one root element) and reports the first error with line and column. It does not validate against a DTD or XSD.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['xml'],
    properties: { xml: { type: 'string', maxLength: MAX_TEXT, description: 'XML text.' } },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['valid', 'errors'],
    properties: { valid: { type: 'boolean' }, errors: { type: 'array', maxItems: 1, items: problemSchema } },
  },
  examples: [
    { input: { xml: '<a><b x="1">t</b></a>' }, output: { valid: true, errors: [] } },
    {
      input: { xml: '<a>\n  <b>text</c>\n</a>' },
      output: {
        valid: false,
        errors: [
          {
            message: "Expected closing tag 'b' (opened in line 2, col 3) instead of closing tag 'c'.",
            line: 2,
            column: 10,
            code: 'InvalidTag',
          },
        ],
      },
    },
  ],
  run({ xml }: { xml: string }) {
    const check = XMLValidator.validate(xml, { allowBooleanAttributes: true });
    if (check === true) return { valid: true, errors: [] };
    return { valid: false, errors: [{ message: check.err.msg, line: check.err.line, column: check.err.col, code: check.err.code }] };
  },
};

const mod: ModuleDefinition = {
  name: 'yaml',
  version: '1.0.0',
  title: 'YAML and XML conversion',
  description:
    'Convert between YAML, XML and JSON and check well-formedness: YAML to JSON and back (yaml), XML to JSON and back (fast-xml-parser), and validation of YAML and XML with line and column numbers for each error.',
  category: 'data',
  tags: ['yaml', 'yml', 'xml', 'json', 'convert', 'parse', 'validate', 'config', 'rss', 'fast-xml-parser'],
  actions: [yamlToJson, jsonToYaml, xmlToJson, jsonToXml, validateYaml, validateXml],
};

export default mod;
