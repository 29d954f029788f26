import * as cheerio from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { ActionInputError, type ActionDefinition, type ModuleDefinition } from '../types';

const MAX_HTML = 1_000_000;
const htmlInput = { type: 'string', maxLength: MAX_HTML, description: 'HTML document or fragment.' };
const baseUrlInput = {
  type: 'string',
  format: 'uri',
  maxLength: 2048,
  description: 'URL of the page, used to make relative URLs absolute (a <base href> in the page is honoured too).',
};

const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'svg', 'canvas', 'iframe', 'object', 'select', 'button']);
/** Elements separated from their neighbours by a blank line (2) or a line break (1). */
const BREAKS: Record<string, number> = Object.fromEntries([
  ...[
    'p',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'blockquote',
    'pre',
    'table',
    'ul',
    'ol',
    'dl',
    'section',
    'article',
    'header',
    'footer',
    'main',
    'nav',
    'aside',
    'figure',
    'form',
    'fieldset',
    'details',
    'hr',
    'address',
  ].map((t) => [t, 2]),
  ...['div', 'li', 'tr', 'dt', 'dd', 'caption', 'figcaption', 'summary', 'body', 'html', 'option', 'label', 'legend'].map((t) => [t, 1]),
]);

function load(html: string) {
  return cheerio.load(html);
}

function collapse(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

function select($: cheerio.CheerioAPI, selector: string, root?: cheerio.Cheerio<AnyNode>) {
  try {
    return root ? root.find(selector) : $(selector);
  } catch (e) {
    throw new ActionInputError(`invalid CSS selector "${selector}": ${(e as Error).message}`);
  }
}

function isHidden(el: Element): boolean {
  const a = el.attribs ?? {};
  return a.hidden !== undefined || a['aria-hidden'] === 'true' || /display\s*:\s*none|visibility\s*:\s*hidden/i.test(a.style ?? '');
}

/** Readable text: skips scripts/styles/hidden elements, puts blocks on their own lines, collapses spaces. */
function readableText(nodes: AnyNode[]): string {
  // Chunks plus a little state about the end of the output, so each step is O(chunk), not O(output).
  const parts: string[] = [];
  let trailingNewlines = 0;
  let lastChar = '';
  let pending = 0;
  const push = (text: string) => {
    parts.push(text);
    const nl = /\n*$/.exec(text)![0].length;
    trailingNewlines = nl === text.length ? trailingNewlines + nl : nl;
    lastChar = text[text.length - 1]!;
  };
  const emit = (text: string) => {
    const hasOutput = parts.length > 0;
    if (!hasOutput || lastChar === ' ' || lastChar === '\n' || (pending && hasOutput)) text = text.replace(/^ +/, '');
    if (!text) return;
    if (pending && hasOutput && pending > trailingNewlines) push('\n'.repeat(pending - trailingNewlines));
    pending = 0;
    push(text);
  };
  const visit = (node: AnyNode, pre: boolean) => {
    if (node.type === 'text') {
      const data = (node as unknown as { data: string }).data;
      emit(pre ? data : data.replace(/\s+/g, ' '));
      return;
    }
    if (node.type === 'root') {
      for (const child of (node as unknown as { children: AnyNode[] }).children) visit(child, pre);
      return;
    }
    if (node.type !== 'tag') return;
    const el = node as Element;
    const name = el.name.toLowerCase();
    if (SKIP.has(name) || isHidden(el)) return;
    if (name === 'br') {
      push('\n');
      return;
    }
    const level = BREAKS[name] ?? 0;
    if (level) pending = Math.max(pending, level);
    if (name === 'li') emit('- ');
    for (const child of el.children) visit(child, pre || name === 'pre');
    if (name === 'td' || name === 'th') emit('\t');
    if (level) pending = Math.max(pending, level);
  };
  for (const n of nodes) {
    pending = Math.max(pending, parts.length ? 2 : 0);
    visit(n, false);
  }
  return parts
    .join('')
    .split('\n')
    .map((l) => l.replace(/[ \t]+$/, ''))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function baseFor($: cheerio.CheerioAPI, baseUrl?: string): string | undefined {
  const tagBase = $('base[href]').first().attr('href');
  if (tagBase) {
    try {
      return new URL(tagBase, baseUrl).href;
    } catch {
      /* relative <base> without a base_url: ignore */
    }
  }
  return baseUrl;
}

function resolve(href: string, base?: string): string {
  const trimmed = href.trim();
  if (!base) return trimmed;
  try {
    return new URL(trimmed, base).href;
  } catch {
    return trimmed;
  }
}

const selectAction: ActionDefinition = {
  name: 'select',
  description:
    'Runs a CSS selector (e.g. "article h2 a", "table.prices td:nth-child(2)", "meta[property^=og:]") over HTML and returns each match: tag, trimmed text, attributes, and optionally inner HTML. Use to scrape specific elements from a page you already fetched.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['html', 'selector'],
    properties: {
      html: htmlInput,
      selector: {
        type: 'string',
        minLength: 1,
        maxLength: 1000,
        description: 'CSS selector (CSS3 plus :contains(), :has(), :first, :eq(n)).',
      },
      attributes: { type: 'array', maxItems: 50, items: { type: 'string' }, description: 'Only return these attributes (default: all).' },
      include_html: { type: 'boolean', default: false, description: 'Also return the inner HTML of each match.' },
      limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100, description: 'Return at most this many matches.' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['count', 'matches'],
    properties: {
      count: { type: 'integer', minimum: 0, description: 'Total matches (may exceed the number returned).' },
      matches: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['tag', 'text', 'attributes'],
          properties: {
            tag: { type: 'string' },
            text: { type: 'string' },
            attributes: { type: 'object', additionalProperties: { type: 'string' } },
            html: { type: 'string' },
          },
        },
      },
    },
  },
  examples: [
    {
      input: {
        html: '<ul><li class="p" data-id="1">Pen <b>$2</b></li><li class="p" data-id="2">Book</li><li>Other</li></ul>',
        selector: 'li.p',
      },
      output: {
        count: 2,
        matches: [
          { tag: 'li', text: 'Pen $2', attributes: { class: 'p', 'data-id': '1' } },
          { tag: 'li', text: 'Book', attributes: { class: 'p', 'data-id': '2' } },
        ],
      },
    },
    {
      input: { html: '<div id="x"><p>Hi <em>there</em></p></div>', selector: '#x p', include_html: true, attributes: ['id'] },
      output: { count: 1, matches: [{ tag: 'p', text: 'Hi there', attributes: {}, html: 'Hi <em>there</em>' }] },
    },
  ],
  run({
    html,
    selector,
    attributes,
    include_html = false,
    limit = 100,
  }: {
    html: string;
    selector: string;
    attributes?: string[];
    include_html?: boolean;
    limit?: number;
  }) {
    const $ = load(html);
    const found = select($, selector);
    const matches = found
      .slice(0, limit)
      .toArray()
      .filter((n): n is Element => n.type === 'tag' || n.type === 'script' || n.type === 'style')
      .map((el) => {
        const all = el.attribs ?? {};
        const attrs = attributes ? Object.fromEntries(attributes.filter((a) => a in all).map((a) => [a, all[a]!])) : { ...all };
        const m: { tag: string; text: string; attributes: Record<string, string>; html?: string } = {
          tag: el.name,
          text: collapse($(el).text()),
          attributes: attrs,
        };
        if (include_html) m.html = $(el).html() ?? '';
        return m;
      });
    return { count: found.length, matches };
  },
};

const textAction: ActionDefinition = {
  name: 'text',
  description:
    'Extracts the readable text of an HTML page or of the elements matching a selector: scripts, styles and hidden elements are dropped, block elements start new lines, list items get "- ", spaces are collapsed. Use to read a fetched page without markup.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['html'],
    properties: {
      html: htmlInput,
      selector: {
        type: 'string',
        maxLength: 1000,
        description: 'Only the text of these elements (e.g. "main, article"); default the whole document.',
      },
      max_length: { type: 'integer', minimum: 1, maximum: 1_000_000, description: 'Cut the text to this many characters.' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['text', 'length', 'truncated'],
    properties: { text: { type: 'string' }, length: { type: 'integer', minimum: 0 }, truncated: { type: 'boolean' } },
  },
  examples: [
    {
      input: {
        html: '<html><head><title>T</title><style>p{}</style></head><body><h1>News</h1><p>First   paragraph<br>second line.</p><script>track()</script><ul><li>one</li><li>two</li></ul><p hidden>secret</p></body></html>',
      },
      output: { text: 'News\n\nFirst paragraph\nsecond line.\n\n- one\n- two', length: 47, truncated: false },
    },
  ],
  run({ html, selector, max_length }: { html: string; selector?: string; max_length?: number }) {
    const $ = load(html);
    const nodes = selector ? select($, selector).toArray() : [$.root()[0]!];
    let text = readableText(nodes);
    let truncated = false;
    if (max_length && text.length > max_length) {
      text = text.slice(0, max_length);
      truncated = true;
    }
    return { text, length: text.length, truncated };
  },
};

const links: ActionDefinition = {
  name: 'links',
  description:
    'Lists the links (<a href>) of an HTML page with their text, rel and title. With base_url they are made absolute and marked internal (same host) or external. javascript: and empty links are skipped. Use to crawl or audit a page.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['html'],
    properties: {
      html: htmlInput,
      base_url: baseUrlInput,
      selector: { type: 'string', maxLength: 1000, description: 'Only links inside these elements (e.g. "nav", "main").' },
      unique: { type: 'boolean', default: true, description: 'Keep only the first link to each URL.' },
      limit: { type: 'integer', minimum: 1, maximum: 10_000, default: 1000 },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['links', 'count'],
    properties: {
      links: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['url', 'text'],
          properties: {
            url: { type: 'string' },
            text: { type: 'string' },
            title: { type: 'string' },
            rel: { type: 'string' },
            internal: { type: 'boolean', description: 'Same host as the base URL (only when a base is known).' },
          },
        },
      },
      count: { type: 'integer', minimum: 0 },
    },
  },
  examples: [
    {
      input: {
        html: '<nav><a href="/about">About</a> <a href="https://github.com/x" rel="nofollow">GitHub</a> <a href="javascript:void(0)">JS</a> <a href="about">Again</a> <a href="#top" title="Top">↑</a></nav>',
        base_url: 'https://example.com/',
      },
      output: {
        links: [
          { url: 'https://example.com/about', text: 'About', internal: true },
          { url: 'https://github.com/x', text: 'GitHub', rel: 'nofollow', internal: false },
          { url: 'https://example.com/#top', text: '↑', title: 'Top', internal: true },
        ],
        count: 3,
      },
    },
    {
      input: { html: '<a href="/a">A</a><a href="mailto:hi@example.com">Mail</a>' },
      output: {
        links: [
          { url: '/a', text: 'A' },
          { url: 'mailto:hi@example.com', text: 'Mail' },
        ],
        count: 2,
      },
    },
  ],
  run({
    html,
    base_url,
    selector,
    unique = true,
    limit = 1000,
  }: {
    html: string;
    base_url?: string;
    selector?: string;
    unique?: boolean;
    limit?: number;
  }) {
    const $ = load(html);
    const base = baseFor($, base_url);
    let baseHost: string | undefined;
    try {
      baseHost = base ? new URL(base).host : undefined;
    } catch {
      baseHost = undefined;
    }
    const anchors = selector ? select($, selector).find('a[href]').add(select($, selector).filter('a[href]')) : $('a[href]');
    const out: { url: string; text: string; title?: string; rel?: string; internal?: boolean }[] = [];
    const seen = new Set<string>();
    for (const el of anchors.toArray()) {
      const href = $(el).attr('href')?.trim() ?? '';
      if (!href || /^javascript:/i.test(href)) continue;
      const url = resolve(href, base);
      if (unique && seen.has(url)) continue;
      seen.add(url);
      const link: (typeof out)[number] = { url, text: collapse($(el).text()) || collapse($(el).find('img').attr('alt') ?? '') };
      const title = $(el).attr('title');
      const rel = $(el).attr('rel');
      if (title) link.title = title;
      if (rel) link.rel = rel;
      if (baseHost) {
        try {
          const u = new URL(url);
          link.internal = u.host === baseHost;
        } catch {
          /* leave internal unset */
        }
      }
      out.push(link);
      if (out.length >= limit) break;
    }
    return { links: out, count: out.length };
  },
};

const meta: ActionDefinition = {
  name: 'meta',
  description:
    "Reads a page's metadata: title, meta description, canonical URL, language, keywords, robots, favicon, and all Open Graph (og:*) and Twitter card tags. Use to preview or summarise a link, or to check SEO tags.",
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['html'],
    properties: { html: htmlInput, base_url: baseUrlInput },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['title', 'description', 'canonical', 'lang', 'keywords', 'robots', 'icon', 'open_graph', 'twitter'],
    properties: {
      title: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      description: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      canonical: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      lang: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      keywords: { type: 'array', items: { type: 'string' } },
      robots: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      icon: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      open_graph: {
        type: 'object',
        additionalProperties: { type: 'string' },
        description: 'og:* properties without the prefix (first value of each).',
      },
      twitter: { type: 'object', additionalProperties: { type: 'string' }, description: 'twitter:* names without the prefix.' },
    },
  },
  examples: [
    {
      input: {
        html: '<html lang="en"><head><title> Great Article </title><meta name="description" content="A short summary."><meta name="keywords" content="news, tech"><link rel="canonical" href="/a/1"><link rel="icon" href="/favicon.ico"><meta property="og:title" content="Great Article"><meta property="og:image" content="https://cdn.example.com/a.png"><meta name="twitter:card" content="summary_large_image"></head><body></body></html>',
        base_url: 'https://example.com/a/1?ref=x',
      },
      output: {
        title: 'Great Article',
        description: 'A short summary.',
        canonical: 'https://example.com/a/1',
        lang: 'en',
        keywords: ['news', 'tech'],
        robots: null,
        icon: 'https://example.com/favicon.ico',
        open_graph: { title: 'Great Article', image: 'https://cdn.example.com/a.png' },
        twitter: { card: 'summary_large_image' },
      },
    },
  ],
  run({ html, base_url }: { html: string; base_url?: string }) {
    const $ = load(html);
    const base = baseFor($, base_url);
    const metaContent = (name: string) => {
      const v = $('meta')
        .filter((_, el) => ($(el).attr('name') ?? $(el).attr('property') ?? '').toLowerCase() === name)
        .first()
        .attr('content');
      return v === undefined ? null : collapse(v);
    };
    const prefixed = (prefix: string) => {
      const out: Record<string, string> = {};
      $('meta').each((_, el) => {
        const key = ($(el).attr('property') ?? $(el).attr('name') ?? '').trim();
        const content = $(el).attr('content');
        if (key.toLowerCase().startsWith(prefix) && content !== undefined) {
          const k = key.slice(prefix.length);
          if (k && !(k in out)) out[k] = collapse(content);
        }
      });
      return out;
    };
    const link = (rel: string) => {
      const href = $('link[href]')
        .filter((_, el) => ($(el).attr('rel') ?? '').toLowerCase().split(/\s+/).includes(rel))
        .first()
        .attr('href');
      return href ? resolve(href, base) : null;
    };
    const title = $('head title').first().text() || $('title').first().text();
    const keywords = metaContent('keywords');
    return {
      title: title ? collapse(title) : (metaContent('og:title') ?? null),
      description: metaContent('description') ?? metaContent('og:description'),
      canonical: link('canonical'),
      lang: $('html').attr('lang')?.trim() || null,
      keywords: keywords
        ? keywords
            .split(',')
            .map((k) => k.trim())
            .filter(Boolean)
        : [],
      robots: metaContent('robots'),
      icon: link('icon') ?? link('apple-touch-icon'),
      open_graph: prefixed('og:'),
      twitter: prefixed('twitter:'),
    };
  },
};

const tables: ActionDefinition = {
  name: 'tables',
  description:
    'Extracts HTML tables as rows of cell text: headers come from <thead>/<th> when present, colspan and rowspan are expanded so every row has the same width. Optionally returns rows as objects keyed by header. Use to get tabular data out of a web page.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['html'],
    properties: {
      html: htmlInput,
      selector: { type: 'string', maxLength: 1000, default: 'table', description: 'Which tables (CSS selector).' },
      as_objects: {
        type: 'boolean',
        default: false,
        description: 'Return rows as objects keyed by header text (when the table has headers).',
      },
      max_tables: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
      max_rows: { type: 'integer', minimum: 1, maximum: 10_000, default: 1000, description: 'Per table.' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['tables', 'count'],
    properties: {
      count: { type: 'integer', minimum: 0 },
      tables: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['caption', 'headers', 'rows', 'truncated'],
          properties: {
            caption: { anyOf: [{ type: 'string' }, { type: 'null' }] },
            headers: { type: 'array', items: { type: 'string' } },
            rows: {
              type: 'array',
              items: {
                oneOf: [
                  { type: 'array', items: { type: 'string' } },
                  { type: 'object', additionalProperties: { type: 'string' } },
                ],
              },
            },
            truncated: { type: 'boolean' },
          },
        },
      },
    },
  },
  examples: [
    {
      input: {
        html: '<table><caption>Prices</caption><thead><tr><th>Item</th><th>Price</th></tr></thead><tbody><tr><td>Pen</td><td>$2</td></tr><tr><td colspan="2">Sold out</td></tr></tbody></table>',
      },
      output: {
        count: 1,
        tables: [
          {
            caption: 'Prices',
            headers: ['Item', 'Price'],
            rows: [
              ['Pen', '$2'],
              ['Sold out', 'Sold out'],
            ],
            truncated: false,
          },
        ],
      },
    },
    {
      input: {
        html: '<table><tr><th>City</th><th>Pop</th></tr><tr><td>Oslo</td><td>709k</td></tr></table><table><tr><td>a</td><td rowspan="2">b</td></tr><tr><td>c</td></tr></table>',
        as_objects: true,
      },
      output: {
        count: 2,
        tables: [
          { caption: null, headers: ['City', 'Pop'], rows: [{ City: 'Oslo', Pop: '709k' }], truncated: false },
          {
            caption: null,
            headers: [],
            rows: [
              ['a', 'b'],
              ['c', 'b'],
            ],
            truncated: false,
          },
        ],
      },
    },
  ],
  run({
    html,
    selector = 'table',
    as_objects = false,
    max_tables = 20,
    max_rows = 1000,
  }: {
    html: string;
    selector?: string;
    as_objects?: boolean;
    max_tables?: number;
    max_rows?: number;
  }) {
    const $ = load(html);
    const found = select($, selector).filter('table');
    const out = found
      .slice(0, max_tables)
      .toArray()
      .map((table) => {
        // Rows of this table only (not of nested tables).
        const trs = $(table)
          .find('tr')
          .filter((_, tr) => $(tr).closest('table')[0] === table)
          .toArray();
        const grid: string[][] = [];
        const headerRow: boolean[] = [];
        const pending: Map<number, { text: string }>[] = [];
        trs.forEach((tr, r) => {
          const row: string[] = [];
          const carry = pending[r] ?? new Map();
          let col = 0;
          const fill = () => {
            while (carry.has(col)) {
              row[col] = carry.get(col)!.text;
              col++;
            }
          };
          const cells = $(tr).children('td, th').toArray() as Element[];
          for (const cell of cells) {
            fill();
            const text = collapse($(cell).text());
            const colspan = Math.min(Math.max(Number($(cell).attr('colspan')) || 1, 1), 100);
            const rowspan = Math.min(Math.max(Number($(cell).attr('rowspan')) || 1, 1), 1000);
            for (let c = 0; c < colspan; c++) {
              row[col] = text;
              for (let k = 1; k < rowspan; k++) (pending[r + k] ??= new Map()).set(col, { text });
              col++;
            }
          }
          fill();
          grid.push(Array.from(row, (v) => v ?? ''));
          headerRow.push(cells.length > 0 && cells.every((c) => c.name === 'th') && $(tr).parents('tfoot').length === 0);
        });
        let headers: string[] = [];
        let body = grid;
        const theadRows = trs.map((tr) => $(tr).parent().is('thead'));
        if (grid.length && (theadRows[0] || headerRow[0])) {
          headers = grid[0]!;
          body = grid.slice(1);
        }
        const width = Math.max(headers.length, ...body.map((r) => r.length), 0);
        const pad = (r: string[]) => (r.length < width ? [...r, ...Array<string>(width - r.length).fill('')] : r);
        if (headers.length) headers = pad(headers);
        body = body.filter((r) => r.length > 0).map(pad);
        const truncated = body.length > max_rows;
        body = body.slice(0, max_rows);
        const rows =
          as_objects && headers.length
            ? body.map((r) => Object.fromEntries(headers.map((h, i) => [h || `column_${i + 1}`, r[i] ?? ''])))
            : body;
        const caption = $(table).children('caption').first().text();
        return { caption: caption ? collapse(caption) : null, headers, rows, truncated };
      });
    return { tables: out, count: out.length };
  },
};

const images: ActionDefinition = {
  name: 'images',
  description:
    "Lists the images (<img>) of an HTML page with src (absolute when a base URL is known), alt text, title and declared width/height. Use to find a page's pictures or check missing alt text.",
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['html'],
    properties: {
      html: htmlInput,
      base_url: baseUrlInput,
      limit: { type: 'integer', minimum: 1, maximum: 10_000, default: 1000 },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['images', 'count'],
    properties: {
      images: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['src', 'alt'],
          properties: {
            src: { type: 'string' },
            alt: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'null when the alt attribute is missing.' },
            title: { type: 'string' },
            width: { type: 'integer' },
            height: { type: 'integer' },
          },
        },
      },
      count: { type: 'integer', minimum: 0 },
    },
  },
  examples: [
    {
      input: {
        html: '<img src="/logo.png" alt="Logo" width="120" height="40"><img data-src="lazy.jpg" src="data:image/gif;base64,R0lGOD"><img src="photo.jpg">',
        base_url: 'https://example.com/blog/',
      },
      output: {
        images: [
          { src: 'https://example.com/logo.png', alt: 'Logo', width: 120, height: 40 },
          { src: 'https://example.com/blog/lazy.jpg', alt: null },
          { src: 'https://example.com/blog/photo.jpg', alt: null },
        ],
        count: 3,
      },
    },
  ],
  run({ html, base_url, limit = 1000 }: { html: string; base_url?: string; limit?: number }) {
    const $ = load(html);
    const base = baseFor($, base_url);
    const out: { src: string; alt: string | null; title?: string; width?: number; height?: number }[] = [];
    for (const el of $('img').toArray()) {
      const $el = $(el);
      const src = $el.attr('src')?.trim();
      const lazy = $el.attr('data-src')?.trim();
      const chosen = (src && !src.startsWith('data:')) || !lazy ? src : lazy;
      if (!chosen) continue;
      const img: (typeof out)[number] = { src: chosen.startsWith('data:') ? chosen : resolve(chosen, base), alt: $el.attr('alt') ?? null };
      const title = $el.attr('title');
      if (title) img.title = title;
      const w = Number.parseInt($el.attr('width') ?? '', 10);
      const h = Number.parseInt($el.attr('height') ?? '', 10);
      if (Number.isFinite(w)) img.width = w;
      if (Number.isFinite(h)) img.height = h;
      out.push(img);
      if (out.length >= limit) break;
    }
    return { images: out, count: out.length };
  },
};

const headings: ActionDefinition = {
  name: 'headings',
  description:
    'Returns the outline of an HTML page: every h1-h6 heading in document order with its level, text and id. Use to understand the structure of a page before reading parts of it.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['html'],
    properties: { html: htmlInput },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['headings'],
    properties: {
      headings: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['level', 'text', 'id'],
          properties: {
            level: { type: 'integer', minimum: 1, maximum: 6 },
            text: { type: 'string' },
            id: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          },
        },
      },
    },
  },
  examples: [
    {
      input: { html: '<h1>Guide</h1><p>x</p><h2 id="install">Install <small>v2</small></h2><h3>Linux</h3>' },
      output: {
        headings: [
          { level: 1, text: 'Guide', id: null },
          { level: 2, text: 'Install v2', id: 'install' },
          { level: 3, text: 'Linux', id: null },
        ],
      },
    },
  ],
  run({ html }: { html: string }) {
    const $ = load(html);
    return {
      headings: $('h1, h2, h3, h4, h5, h6')
        .toArray()
        .map((el) => ({ level: Number((el as Element).name.slice(1)), text: collapse($(el).text()), id: $(el).attr('id') ?? null })),
    };
  },
};

const mod: ModuleDefinition = {
  name: 'html',
  version: '1.0.0',
  title: 'HTML extraction',
  description:
    'Scrape and read HTML you already have (cheerio): CSS-selector queries, readable text, links (absolute with a base URL), page metadata (title, description, Open Graph, canonical), tables as rows, images and the heading outline.',
  category: 'web',
  tags: [
    'html',
    'scrape',
    'scraping',
    'css selector',
    'cheerio',
    'links',
    'meta',
    'open graph',
    'seo',
    'tables',
    'text',
    'images',
    'headings',
  ],
  actions: [selectAction, textAction, links, meta, tables, images, headings],
};

export default mod;
