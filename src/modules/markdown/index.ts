import { gfm } from '@joplin/turndown-plugin-gfm';
import GithubSlugger from 'github-slugger';
import { Marked, type Token, type Tokens } from 'marked';
import sanitizeHtml from 'sanitize-html';
import TurndownService from 'turndown';
import { type ActionDefinition, type ModuleDefinition } from '../types';

const MAX_MD = 1_000_000;
const mdInput = { type: 'string', maxLength: MAX_MD, description: 'Markdown text (CommonMark + GitHub extensions).' };

const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'del', 'ins', 'sup', 'sub', 'input', 'details', 'summary', 'kbd', 'mark'],
  allowedAttributes: {
    a: ['href', 'title', 'name'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    code: ['class'],
    ol: ['start'],
    th: ['align', 'colspan', 'rowspan'],
    td: ['align', 'colspan', 'rowspan'],
    input: ['type', 'checked', 'disabled'],
    h1: ['id'],
    h2: ['id'],
    h3: ['id'],
    h4: ['id'],
    h5: ['id'],
    h6: ['id'],
  },
  allowedClasses: { code: ['language-*'] },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowProtocolRelative: false,
  exclusiveFilter: (frame) => frame.tag === 'input' && frame.attribs.type !== 'checkbox',
};

function lexer(markdown: string, gfmOn = true): Token[] {
  return new Marked({ gfm: gfmOn }).lexer(markdown);
}

/** Visits every token, nested ones included (list items, table cells, inline tokens). */
function walk(tokens: Token[], visit: (t: Token) => void) {
  for (const t of tokens) {
    visit(t);
    const anyT = t as Token & { tokens?: Token[]; items?: Token[]; header?: Tokens.TableCell[]; rows?: Tokens.TableCell[][] };
    if (anyT.type === 'table') {
      for (const cell of anyT.header ?? []) walk(cell.tokens, visit);
      for (const row of anyT.rows ?? []) for (const cell of row) walk(cell.tokens, visit);
      continue;
    }
    if (anyT.items) walk(anyT.items, visit);
    if (anyT.tokens) walk(anyT.tokens, visit);
  }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'", nbsp: '\u00a0' };
function decode(text: string): string {
  return text
    .replace(/&(amp|lt|gt|quot|#39|apos|nbsp);/g, (_, e: string) => ENTITIES[e]!)
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)));
}

function inlineText(tokens: Token[] | undefined): string {
  if (!tokens) return '';
  return tokens
    .map((t) => {
      switch (t.type) {
        case 'br':
          return '\n';
        case 'html':
          return '';
        case 'image':
          return (t as Tokens.Image).text;
        case 'codespan':
        case 'escape':
          return decode((t as Tokens.Codespan).text);
        default: {
          const withTokens = t as Token & { tokens?: Token[]; text?: string };
          return withTokens.tokens ? inlineText(withTokens.tokens) : decode(withTokens.text ?? '');
        }
      }
    })
    .join('');
}

function blockText(tokens: Token[]): string {
  const parts: string[] = [];
  for (const t of tokens) {
    switch (t.type) {
      case 'space':
      case 'hr':
      case 'def':
        break;
      case 'code':
        parts.push((t as Tokens.Code).text);
        break;
      case 'list':
        parts.push((t as Tokens.List).items.map((item) => blockText(item.tokens).replace(/\n\n/g, '\n')).join('\n'));
        break;
      case 'blockquote':
        parts.push(blockText((t as Tokens.Blockquote).tokens));
        break;
      case 'table': {
        const table = t as Tokens.Table;
        const line = (cells: Tokens.TableCell[]) => cells.map((c) => inlineText(c.tokens)).join('\t');
        parts.push([line(table.header), ...table.rows.map(line)].join('\n'));
        break;
      }
      case 'html': {
        const text = decode(sanitizeHtml((t as Tokens.HTML).text, { allowedTags: [], allowedAttributes: {} })).trim();
        if (text) parts.push(text);
        break;
      }
      default: {
        const withTokens = t as Token & { tokens?: Token[]; text?: string };
        const text = withTokens.tokens ? inlineText(withTokens.tokens) : decode(withTokens.text ?? '');
        if (text.trim()) parts.push(text);
      }
    }
  }
  return parts.join('\n\n');
}

interface Heading {
  level: number;
  text: string;
  slug: string;
}

function headings(markdown: string): Heading[] {
  const slugger = new GithubSlugger();
  const out: Heading[] = [];
  walk(lexer(markdown), (t) => {
    if (t.type === 'heading') {
      const text = inlineText((t as Tokens.Heading).tokens).trim();
      out.push({ level: (t as Tokens.Heading).depth, text, slug: slugger.slug(text) });
    }
  });
  return out;
}

const toHtml: ActionDefinition = {
  name: 'to_html',
  description:
    'Renders Markdown (CommonMark + GitHub tables, task lists, strikethrough, autolinks) to HTML. The output is sanitized: scripts, event handlers, iframes, styles and javascript: URLs are removed, so it is safe to embed in a page or email.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['markdown'],
    properties: {
      markdown: mdInput,
      gfm: {
        type: 'boolean',
        default: true,
        description: 'Enable GitHub Flavored Markdown (tables, task lists, strikethrough, autolinks).',
      },
      breaks: { type: 'boolean', default: false, description: 'Turn single line breaks into <br>.' },
      heading_ids: { type: 'boolean', default: false, description: 'Add GitHub-style id attributes to headings (for anchors).' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['html'],
    properties: { html: { type: 'string', description: 'Sanitized HTML.' } },
  },
  examples: [
    {
      input: {
        markdown: '# Title\n\nSome **bold** text and a [link](https://example.com).\n\n- [x] done\n- item <script>alert(1)</script>',
      },
      output: {
        html: '<h1>Title</h1>\n<p>Some <strong>bold</strong> text and a <a href="https://example.com">link</a>.</p>\n<ul>\n<li><input checked disabled type="checkbox" /> done</li>\n<li>item </li>\n</ul>\n',
      },
    },
    {
      input: { markdown: '## Setup\n\n| a | b |\n|---|---|\n| 1 | 2 |', heading_ids: true },
      output: {
        html: '<h2 id="setup">Setup</h2>\n<table>\n<thead>\n<tr>\n<th>a</th>\n<th>b</th>\n</tr>\n</thead>\n<tbody><tr>\n<td>1</td>\n<td>2</td>\n</tr>\n</tbody></table>\n',
      },
    },
  ],
  run({
    markdown,
    gfm: gfmOn = true,
    breaks = false,
    heading_ids = false,
  }: {
    markdown: string;
    gfm?: boolean;
    breaks?: boolean;
    heading_ids?: boolean;
  }) {
    const marked = new Marked({ gfm: gfmOn, breaks, async: false });
    if (heading_ids) {
      const slugger = new GithubSlugger();
      marked.use({
        renderer: {
          heading(this: { parser: { parseInline(tokens: Token[]): string } }, token: Tokens.Heading) {
            const id = slugger.slug(inlineText(token.tokens).trim());
            return `<h${token.depth} id="${id}">${this.parser.parseInline(token.tokens)}</h${token.depth}>\n`;
          },
        },
      });
    }
    const raw = marked.parse(markdown) as string;
    return { html: sanitizeHtml(raw, SANITIZE) };
  },
};

const fromHtml: ActionDefinition = {
  name: 'from_html',
  description:
    'Converts HTML to clean Markdown (turndown, with GitHub tables, strikethrough and task lists). Scripts and styles are dropped. Use to turn a web page or rich-text email into text an LLM reads well.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['html'],
    properties: {
      html: { type: 'string', maxLength: MAX_MD, description: 'HTML fragment or document.' },
      heading_style: { type: 'string', enum: ['atx', 'setext'], default: 'atx', description: 'atx: "# Title"; setext: underlined.' },
      bullet: { type: 'string', enum: ['-', '*', '+'], default: '-', description: 'Bullet list marker.' },
      code_block_style: { type: 'string', enum: ['fenced', 'indented'], default: 'fenced' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['markdown'],
    properties: { markdown: { type: 'string' } },
  },
  examples: [
    {
      input: {
        html: '<h1>Hello</h1><p>This is <b>bold</b> and <a href="https://example.com">a link</a>.</p><ul><li>one</li><li>two</li></ul><script>x()</script>',
      },
      output: { markdown: '# Hello\n\nThis is **bold** and [a link](https://example.com).\n\n-   one\n-   two' },
    },
    {
      input: { html: '<table><tr><th>Name</th><th>Qty</th></tr><tr><td>Pen</td><td>2</td></tr></table>' },
      output: { markdown: '| Name | Qty |\n| --- | --- |\n| Pen | 2   |' },
    },
  ],
  run({
    html,
    heading_style = 'atx',
    bullet = '-',
    code_block_style = 'fenced',
  }: {
    html: string;
    heading_style?: 'atx' | 'setext';
    bullet?: '-' | '*' | '+';
    code_block_style?: 'fenced' | 'indented';
  }) {
    const td = new TurndownService({
      headingStyle: heading_style,
      bulletListMarker: bullet,
      codeBlockStyle: code_block_style,
      emDelimiter: '_',
    });
    td.use(gfm);
    td.remove(['script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed', 'head'] as TurndownService.TagName[]);
    return { markdown: td.turndown(html) };
  },
};

const extractHeadings: ActionDefinition = {
  name: 'extract_headings',
  description:
    'Returns the outline of a Markdown document: every heading with its level (1-6), plain text and the GitHub-style anchor slug. Use to understand the structure of a long document or link to a section.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['markdown'],
    properties: {
      markdown: mdInput,
      max_level: { type: 'integer', minimum: 1, maximum: 6, default: 6, description: 'Ignore headings deeper than this level.' },
    },
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
          required: ['level', 'text', 'slug'],
          properties: { level: { type: 'integer', minimum: 1, maximum: 6 }, text: { type: 'string' }, slug: { type: 'string' } },
        },
      },
    },
  },
  examples: [
    {
      input: {
        markdown: '# Guide\n\nIntro.\n\n## Install `npm`\n\n### On macOS\n\n## Usage\n\nSetext\n------\n\n```\n# not a heading\n```',
      },
      output: {
        headings: [
          { level: 1, text: 'Guide', slug: 'guide' },
          { level: 2, text: 'Install npm', slug: 'install-npm' },
          { level: 3, text: 'On macOS', slug: 'on-macos' },
          { level: 2, text: 'Usage', slug: 'usage' },
          { level: 2, text: 'Setext', slug: 'setext' },
        ],
      },
    },
  ],
  run({ markdown, max_level = 6 }: { markdown: string; max_level?: number }) {
    return { headings: headings(markdown).filter((h) => h.level <= max_level) };
  },
};

const toc: ActionDefinition = {
  name: 'toc',
  description:
    'Generates a Markdown table of contents (nested bullet list of links to GitHub-style heading anchors) for a Markdown document. Use to add navigation to a README or long document.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['markdown'],
    properties: {
      markdown: mdInput,
      min_level: {
        type: 'integer',
        minimum: 1,
        maximum: 6,
        default: 1,
        description: 'Skip headings above this level (e.g. 2 to leave out the document title).',
      },
      max_level: { type: 'integer', minimum: 1, maximum: 6, default: 3, description: 'Skip headings deeper than this level.' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['toc', 'entries'],
    properties: { toc: { type: 'string' }, entries: { type: 'integer', minimum: 0 } },
  },
  examples: [
    {
      input: { markdown: '# Guide\n## Install\n### On macOS\n## Usage\n## Usage', min_level: 2 },
      output: { toc: '- [Install](#install)\n  - [On macOS](#on-macos)\n- [Usage](#usage)\n- [Usage](#usage-1)\n', entries: 4 },
    },
  ],
  run({ markdown, min_level = 1, max_level = 3 }: { markdown: string; min_level?: number; max_level?: number }) {
    const list = headings(markdown).filter((h) => h.level >= min_level && h.level <= max_level);
    const top = Math.min(...list.map((h) => h.level));
    const escape = (s: string) => s.replace(/([[\]\\])/g, '\\$1');
    const toc = list.map((h) => `${'  '.repeat(h.level - top)}- [${escape(h.text)}](#${h.slug})\n`).join('');
    return { toc, entries: list.length };
  },
};

const extractLinks: ActionDefinition = {
  name: 'extract_links',
  description:
    'Lists every link and image in a Markdown document (inline, reference-style and bare autolinks) with its text, URL and title, in document order. Use to check or follow the references of a document.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['markdown'],
    properties: {
      markdown: mdInput,
      include_images: { type: 'boolean', default: true },
      unique: { type: 'boolean', default: false, description: 'Keep only the first occurrence of each URL.' },
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
          required: ['type', 'text', 'url'],
          properties: {
            type: { type: 'string', enum: ['link', 'image'] },
            text: { type: 'string', description: 'Link text or image alt text.' },
            url: { type: 'string' },
            title: { type: 'string' },
          },
        },
      },
      count: { type: 'integer', minimum: 0 },
    },
  },
  examples: [
    {
      input: {
        markdown:
          'See [the docs](https://example.com/docs "Docs") and ![logo](/logo.png).\nAlso https://example.org and [ref][1].\n\n[1]: https://example.net',
      },
      output: {
        links: [
          { type: 'link', text: 'the docs', url: 'https://example.com/docs', title: 'Docs' },
          { type: 'image', text: 'logo', url: '/logo.png' },
          { type: 'link', text: 'https://example.org', url: 'https://example.org' },
          { type: 'link', text: 'ref', url: 'https://example.net' },
        ],
        count: 4,
      },
    },
  ],
  run({ markdown, include_images = true, unique = false }: { markdown: string; include_images?: boolean; unique?: boolean }) {
    const links: { type: string; text: string; url: string; title?: string }[] = [];
    const seen = new Set<string>();
    walk(lexer(markdown), (t) => {
      if (t.type !== 'link' && t.type !== 'image') return;
      if (t.type === 'image' && !include_images) return;
      const l = t as Tokens.Link | Tokens.Image;
      if (unique && seen.has(l.href)) return;
      seen.add(l.href);
      const text = t.type === 'image' ? l.text : inlineText(l.tokens);
      links.push({ type: t.type, text, url: l.href, ...(l.title ? { title: l.title } : {}) });
    });
    return { links, count: links.length };
  },
};

const extractCodeBlocks: ActionDefinition = {
  name: 'extract_code_blocks',
  description:
    'Returns the fenced and indented code blocks of a Markdown document with their language tags, optionally only one language. Use to pull code, JSON or shell commands out of an LLM answer or a README.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['markdown'],
    properties: {
      markdown: mdInput,
      language: { type: 'string', maxLength: 50, description: 'Only blocks with this language tag (case-insensitive), e.g. "json".' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['blocks', 'count'],
    properties: {
      blocks: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['language', 'code'],
          properties: {
            language: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'Info-string language, null when none.' },
            code: { type: 'string' },
          },
        },
      },
      count: { type: 'integer', minimum: 0 },
    },
  },
  examples: [
    {
      input: { markdown: 'Run:\n\n```bash\nnpm install\n```\n\nThen:\n\n```json\n{"a": 1}\n```\n\n    indented code' },
      output: {
        blocks: [
          { language: 'bash', code: 'npm install' },
          { language: 'json', code: '{"a": 1}' },
          { language: null, code: 'indented code' },
        ],
        count: 3,
      },
    },
    {
      input: { markdown: '```js\nlet a = 1;\n```\n```json\n{}\n```', language: 'JSON' },
      output: { blocks: [{ language: 'json', code: '{}' }], count: 1 },
    },
  ],
  run({ markdown, language }: { markdown: string; language?: string }) {
    const blocks: { language: string | null; code: string }[] = [];
    walk(lexer(markdown), (t) => {
      if (t.type !== 'code') return;
      const c = t as Tokens.Code;
      const lang = c.lang?.trim().split(/\s+/)[0] || null;
      if (language && lang?.toLowerCase() !== language.toLowerCase()) return;
      blocks.push({ language: lang, code: c.text });
    });
    return { blocks, count: blocks.length };
  },
};

const strip: ActionDefinition = {
  name: 'strip',
  description:
    'Converts Markdown to plain text: removes formatting marks, links keep their text, images their alt text, code keeps its content, HTML tags are dropped; blocks are separated by blank lines. Use before counting words, summarising or text-to-speech.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['markdown'],
    properties: { markdown: mdInput },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['text'],
    properties: { text: { type: 'string' } },
  },
  examples: [
    {
      input: {
        markdown:
          '# Title\n\nSome **bold** and _italic_ text with a [link](https://x.io) &amp; `code`.\n\n- one\n- two\n\n> quoted <b>html</b>',
      },
      output: { text: 'Title\n\nSome bold and italic text with a link & code.\n\none\ntwo\n\nquoted html' },
    },
  ],
  run({ markdown }: { markdown: string }) {
    return { text: blockText(lexer(markdown)) };
  },
};

const mod: ModuleDefinition = {
  name: 'markdown',
  version: '1.0.0',
  title: 'Markdown tools',
  description:
    'Work with Markdown documents: render to sanitized HTML (marked + sanitize-html), convert HTML to Markdown (turndown), extract the heading outline, a table of contents, links and code blocks, and strip formatting to plain text.',
  category: 'documents',
  tags: ['markdown', 'md', 'html', 'convert', 'render', 'sanitize', 'turndown', 'headings', 'toc', 'links', 'code blocks', 'plain text'],
  actions: [toHtml, fromHtml, extractHeadings, toc, extractLinks, extractCodeBlocks, strip],
};

export default mod;
