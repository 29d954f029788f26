import Mustache from 'mustache';
import { ActionInputError, type ActionDefinition, type ModuleDefinition } from '../types';

// User templates are unbounded in variety: never keep them in mustache's global parse cache.
Mustache.templateCache = undefined;

const MAX_TEMPLATE = 200_000;
const templateInput = {
  type: 'string',
  maxLength: MAX_TEMPLATE,
  description: 'Mustache template, e.g. "Hello {{name}}! {{#items}}- {{.}}\\n{{/items}}".',
};
const partialsInput = {
  type: 'object',
  maxProperties: 50,
  additionalProperties: { type: 'string', maxLength: MAX_TEMPLATE },
  description: 'Named sub-templates used as {{> name}}.',
};
const tagsInput = {
  type: 'array',
  minItems: 2,
  maxItems: 2,
  items: { type: 'string', minLength: 1, maxLength: 5 },
  description: 'Custom delimiters instead of ["{{", "}}"], e.g. ["<%", "%>"].',
};
const escapeInput = {
  type: 'boolean',
  default: true,
  description:
    'HTML-escape {{var}} values (& < > " \' / ` =); set false for plain text, Markdown or JSON output. {{{var}}} is never escaped.',
};

type Tags = [string, string];
type MustacheToken = [string, string, number, number, MustacheToken[]?, ...unknown[]];

function parse(template: string, tags?: Tags): MustacheToken[] {
  try {
    return Mustache.parse(template, tags) as MustacheToken[];
  } catch (e) {
    throw new ActionInputError(`invalid template: ${(e as Error).message}`);
  }
}

/** Copies the view onto null-prototype objects so tags like {{constructor}} cannot reach Object.prototype. */
function plainView(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plainView);
  if (value && typeof value === 'object') {
    const out = Object.create(null) as Record<string, unknown>;
    for (const [k, v] of Object.entries(value)) out[k] = plainView(v);
    return out;
  }
  return value;
}

function renderOne(template: string, view: unknown, partials: Record<string, string> | undefined, escape: boolean, tags?: Tags): string {
  parse(template, tags);
  for (const [name, p] of Object.entries(partials ?? {})) {
    try {
      Mustache.parse(p, tags);
    } catch (e) {
      throw new ActionInputError(`invalid partial "${name}": ${(e as Error).message}`);
    }
  }
  const config: Mustache.RenderOptions & { tags?: Tags } = escape ? {} : { escape: (v: unknown) => String(v) };
  if (tags) config.tags = tags;
  try {
    return Mustache.render(template, plainView(view), partials ?? {}, config);
  } catch (e) {
    if (e instanceof RangeError) throw new ActionInputError('template rendering recursed too deeply (a partial that includes itself?)');
    throw new ActionInputError(`cannot render template: ${(e as Error).message}`);
  }
}

const render: ActionDefinition = {
  name: 'render',
  description:
    'Renders a logic-less Mustache template with a JSON view: {{name}} (HTML-escaped by default), {{{raw}}}, {{#list}}…{{/list}} loops and conditionals, {{^empty}} inverted sections, {{a.b}} dotted names and {{> partial}}. Use to produce emails, messages, prompts or reports from data.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['template', 'view'],
    properties: {
      template: templateInput,
      view: { type: 'object', description: 'Data the template reads.' },
      escape_html: escapeInput,
      partials: partialsInput,
      tags: tagsInput,
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['output'],
    properties: { output: { type: 'string' } },
  },
  examples: [
    {
      input: {
        template:
          'Hi {{user.name}}, you have {{count}} new messages:\n{{#messages}}- {{subject}} from {{from}}\n{{/messages}}{{^messages}}(none)\n{{/messages}}',
        view: {
          user: { name: 'Ann' },
          count: 2,
          messages: [
            { subject: 'Q3 <report>', from: 'Bob' },
            { subject: 'Lunch', from: 'Cy' },
          ],
        },
      },
      output: { output: 'Hi Ann, you have 2 new messages:\n- Q3 &lt;report&gt; from Bob\n- Lunch from Cy\n' },
    },
    {
      input: {
        template: '# {{title}}\n{{> footer}}',
        view: { title: 'R&D notes', year: 2025 },
        escape_html: false,
        partials: { footer: '(c) {{year}}' },
      },
      output: { output: '# R&D notes\n(c) 2025' },
    },
  ],
  run({
    template,
    view,
    escape_html = true,
    partials,
    tags,
  }: {
    template: string;
    view: Record<string, unknown>;
    escape_html?: boolean;
    partials?: Record<string, string>;
    tags?: Tags;
  }) {
    return { output: renderOne(template, view, partials, escape_html, tags) };
  },
};

const renderMany: ActionDefinition = {
  name: 'render_many',
  description:
    'Renders one Mustache template once per view (e.g. one personalised message per recipient), in order. Same syntax and escaping rules as render; up to 1000 views.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['template', 'views'],
    properties: {
      template: templateInput,
      views: { type: 'array', minItems: 1, maxItems: 1000, items: { type: 'object' }, description: 'One data object per output.' },
      escape_html: escapeInput,
      partials: partialsInput,
      tags: tagsInput,
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['outputs', 'count'],
    properties: { outputs: { type: 'array', items: { type: 'string' } }, count: { type: 'integer', minimum: 0 } },
  },
  examples: [
    {
      input: {
        template: 'Dear {{name}}, your order #{{order}} has shipped.',
        views: [
          { name: 'Ann', order: 101 },
          { name: 'Bob', order: 102 },
        ],
      },
      output: { outputs: ['Dear Ann, your order #101 has shipped.', 'Dear Bob, your order #102 has shipped.'], count: 2 },
    },
  ],
  run({
    template,
    views,
    escape_html = true,
    partials,
    tags,
  }: {
    template: string;
    views: Record<string, unknown>[];
    escape_html?: boolean;
    partials?: Record<string, string>;
    tags?: Tags;
  }) {
    const outputs = views.map((v) => renderOne(template, v, partials, escape_html, tags));
    return { outputs, count: outputs.length };
  },
};

const KINDS: Record<string, string> = {
  name: 'variable',
  '&': 'unescaped',
  '{': 'unescaped',
  '#': 'section',
  '^': 'inverted',
  '>': 'partial',
};

const variables: ActionDefinition = {
  name: 'variables',
  description:
    'Lists the tags a Mustache template uses, each with its kind (variable, unescaped, section, inverted, partial) and the sections it is nested in, plus the top-level names the view must provide. Use to know which data to collect before rendering.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['template'],
    properties: { template: templateInput, tags: tagsInput },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['tags', 'top_level', 'partials'],
    properties: {
      tags: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'kind', 'sections'],
          properties: {
            name: { type: 'string' },
            kind: { type: 'string', enum: ['variable', 'unescaped', 'section', 'inverted', 'partial'] },
            sections: { type: 'array', items: { type: 'string' }, description: 'Enclosing section names, outermost first.' },
          },
        },
      },
      top_level: {
        type: 'array',
        items: { type: 'string' },
        description: 'Distinct first name segments used outside any section (and section names), i.e. the keys the view needs.',
      },
      partials: { type: 'array', items: { type: 'string' } },
    },
  },
  examples: [
    {
      input: { template: 'Hi {{user.name}}! {{#items}}{{title}}: {{{html}}}{{/items}}{{^items}}none{{/items}} {{> footer}}{{! comment }}' },
      output: {
        tags: [
          { name: 'user.name', kind: 'variable', sections: [] },
          { name: 'items', kind: 'section', sections: [] },
          { name: 'title', kind: 'variable', sections: ['items'] },
          { name: 'html', kind: 'unescaped', sections: ['items'] },
          { name: 'items', kind: 'inverted', sections: [] },
          { name: 'footer', kind: 'partial', sections: [] },
        ],
        top_level: ['user', 'items'],
        partials: ['footer'],
      },
    },
  ],
  run({ template, tags }: { template: string; tags?: Tags }) {
    const out: { name: string; kind: string; sections: string[] }[] = [];
    const top = new Set<string>();
    const partials = new Set<string>();
    const walk = (tokens: MustacheToken[], sections: string[]) => {
      for (const t of tokens) {
        const kind = KINDS[t[0]];
        if (!kind) continue;
        out.push({ name: t[1], kind, sections });
        if (kind === 'partial') partials.add(t[1]);
        else if (sections.length === 0 && t[1] !== '.') top.add(t[1].split('.')[0]!);
        if ((kind === 'section' || kind === 'inverted') && t[4]) walk(t[4], [...sections, t[1]]);
      }
    };
    walk(parse(template, tags), []);
    return { tags: out.slice(0, 10_000), top_level: [...top], partials: [...partials] };
  },
};

const validate: ActionDefinition = {
  name: 'validate',
  description:
    'Checks that a Mustache template parses (balanced sections, closed tags) and returns the parser error otherwise. Use before saving a template you wrote.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['template'],
    properties: { template: templateInput, tags: tagsInput },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['valid', 'error'],
    properties: { valid: { type: 'boolean' }, error: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
  },
  examples: [
    { input: { template: '{{#a}}x{{/a}}' }, output: { valid: true, error: null } },
    { input: { template: 'Hi {{#user}}{{name}}' }, output: { valid: false, error: 'Unclosed section "user" at 20' } },
  ],
  run({ template, tags }: { template: string; tags?: Tags }) {
    try {
      Mustache.parse(template, tags);
      return { valid: true, error: null };
    } catch (e) {
      return { valid: false, error: (e as Error).message };
    }
  },
};

const mod: ModuleDefinition = {
  name: 'template',
  version: '1.0.0',
  title: 'Mustache templates',
  description:
    'Render logic-less Mustache templates with JSON data (HTML escaping on by default, can be turned off for text), render one template for many records, list the variables a template needs, and validate templates.',
  category: 'text',
  tags: ['template', 'mustache', 'handlebars', 'render', 'mail merge', 'email', 'prompt', 'variables', 'personalize'],
  actions: [render, renderMany, variables, validate],
};

export default mod;
