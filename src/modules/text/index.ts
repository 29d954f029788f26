import {
  camelCase,
  capitalCase,
  constantCase,
  dotCase,
  kebabCase,
  pascalCase,
  pathCase,
  sentenceCase,
  snakeCase,
  trainCase,
} from 'change-case';
import { createTwoFilesPatch, diffChars, diffLines, diffWords, type ChangeObject } from 'diff';
import slugifyLib from 'slugify';
import validator from 'validator';
import { ActionInputError, type ActionDefinition, type ModuleDefinition } from '../types';

const MAX_TEXT = 1_000_000;

const CASES: Record<string, (s: string) => string> = {
  camel: (s) => camelCase(s),
  pascal: (s) => pascalCase(s),
  snake: (s) => snakeCase(s),
  kebab: (s) => kebabCase(s),
  constant: (s) => constantCase(s),
  title: (s) => capitalCase(s),
  sentence: (s) => sentenceCase(s),
  dot: (s) => dotCase(s),
  path: (s) => pathCase(s),
  train: (s) => trainCase(s),
  upper: (s) => s.toUpperCase(),
  lower: (s) => s.toLowerCase(),
};

const changeCase: ActionDefinition = {
  name: 'change_case',
  description:
    'Converts text or an identifier to another case: camel (fooBar), pascal (FooBar), snake (foo_bar), kebab (foo-bar), constant (FOO_BAR), title (Foo Bar), sentence (Foo bar), dot, path, train, upper or lower. Word boundaries are found from spaces, punctuation and camelCase humps.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['text', 'to'],
    properties: {
      text: { type: 'string', maxLength: 100_000, description: 'The text or identifier to convert.' },
      to: { type: 'string', enum: Object.keys(CASES), description: 'Target case.' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['result'],
    properties: { result: { type: 'string' } },
  },
  examples: [
    { input: { text: 'user account ID', to: 'camel' }, output: { result: 'userAccountId' } },
    { input: { text: 'parseHTTPResponse', to: 'snake' }, output: { result: 'parse_http_response' } },
    { input: { text: 'hello-world again', to: 'title' }, output: { result: 'Hello World Again' } },
  ],
  inline: true,
  run({ text, to }: { text: string; to: string }) {
    const fn = CASES[to];
    if (!fn) throw new ActionInputError(`unknown case "${to}"`);
    return { result: fn(text) };
  },
};

const slugify: ActionDefinition = {
  name: 'slugify',
  description:
    'Turns a title or phrase into a URL-safe slug ("Héllo Wörld!" -> "hello-world"): transliterates accents and symbols, lowercases and joins words with a separator. Use for URLs, file names and ids.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['text'],
    properties: {
      text: { type: 'string', maxLength: 10_000, description: 'Text to slugify.' },
      separator: { type: 'string', maxLength: 3, default: '-', description: 'Character(s) placed between words.' },
      lowercase: { type: 'boolean', default: true, description: 'Lowercase the result.' },
      strict: { type: 'boolean', default: true, description: 'Remove every character other than letters, digits and the separator.' },
      locale: { type: 'string', maxLength: 5, description: 'Locale for transliteration rules, e.g. "de" (ä -> ae) or "vi".' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['slug'],
    properties: { slug: { type: 'string' } },
  },
  examples: [
    { input: { text: 'Héllo Wörld! Cats & dogs, 2024 edition' }, output: { slug: 'hello-world-cats-and-dogs-2024-edition' } },
    { input: { text: 'Über große Straße', separator: '_', locale: 'de' }, output: { slug: 'ueber_grosse_strasse' } },
  ],
  inline: true,
  run({
    text,
    separator = '-',
    lowercase = true,
    strict = true,
    locale,
  }: {
    text: string;
    separator?: string;
    lowercase?: boolean;
    strict?: boolean;
    locale?: string;
  }) {
    let slug = slugifyLib(text, { replacement: separator, lower: lowercase, strict, locale, trim: true });
    if (separator) {
      // Collapse repeated separators left by removed characters and trim them from the ends.
      const esc = separator.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      slug = slug.replace(new RegExp(`(?:${esc}){2,}`, 'g'), separator).replace(new RegExp(`^(?:${esc})+|(?:${esc})+$`, 'g'), '');
    }
    return { slug };
  },
};

/** One character of an address's local part (as `[\p{L}\p{N}._%+'-]`), tested per code point. */
const EMAIL_LOCAL_CHAR = /^[\p{L}\p{N}._%+'-]$/u;
const EMAIL_DOMAIN = /[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/uy;
/**
 * How far before an '@' its local part is looked for. validator refuses local parts over 64
 * characters, so a longer run of them only has to stay longer than that to be refused as before.
 */
const EMAIL_LOCAL_WINDOW = 256;

/**
 * The candidates `[local chars]+@domain(.part)+` in order of appearance, without overlap, found
 * outward from each '@': linear in the text. (One regex over the whole text re-read the run of
 * local characters before a missing '@' from every start: 200,000 letters took the action's
 * whole 10 s deadline.)
 */
function* emailCandidates(text: string): Generator<string> {
  // The end of the previous candidate: a local part starts at or after it.
  let from = 0;
  for (let at = text.indexOf('@'); at !== -1; at = text.indexOf('@', at + 1)) {
    let start = at;
    while (start > from && at - start < EMAIL_LOCAL_WINDOW) {
      const pair = start - 2 >= from && /[\uDC00-\uDFFF]/.test(text[start - 1]!) && /[\uD800-\uDBFF]/.test(text[start - 2]!);
      const width = pair ? 2 : 1;
      if (!EMAIL_LOCAL_CHAR.test(text.slice(start - width, start))) break;
      start -= width;
    }
    if (start === at) continue;
    EMAIL_DOMAIN.lastIndex = at + 1;
    const domain = EMAIL_DOMAIN.exec(text);
    if (!domain) continue;
    yield `${text.slice(start, at)}@${domain[0]}`;
    from = EMAIL_DOMAIN.lastIndex;
    at = from - 1;
  }
}

const extractEmails: ActionDefinition = {
  name: 'extract_emails',
  description:
    'Finds the email addresses in free text (validated, trailing punctuation removed), in order of appearance. Use to pull contacts out of pages, messages or documents.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['text'],
    properties: {
      text: { type: 'string', maxLength: MAX_TEXT, description: 'Text to search.' },
      unique: { type: 'boolean', default: true, description: 'Drop repeated addresses (compared case-insensitively).' },
      lowercase: { type: 'boolean', default: false, description: 'Return addresses lowercased.' },
      max_results: { type: 'integer', minimum: 1, maximum: 10_000, default: 1000, description: 'Stop after this many addresses.' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['emails', 'count'],
    properties: { emails: { type: 'array', items: { type: 'string' } }, count: { type: 'integer', minimum: 0 } },
  },
  examples: [
    {
      input: { text: 'Write to Ann@Example.com or sales@example.co.uk. Ann@example.com again; not a@b.' },
      output: { emails: ['Ann@Example.com', 'sales@example.co.uk'], count: 2 },
    },
  ],
  run({
    text,
    unique = true,
    lowercase = false,
    max_results = 1000,
  }: {
    text: string;
    unique?: boolean;
    lowercase?: boolean;
    max_results?: number;
  }) {
    const emails: string[] = [];
    const seen = new Set<string>();
    for (const candidate of emailCandidates(text)) {
      let email = candidate.replace(/^[.'-]+|[.'-]+$/g, '');
      if (!validator.isEmail(email)) continue;
      const key = email.toLowerCase();
      if (lowercase) email = key;
      if (unique && seen.has(key)) continue;
      seen.add(key);
      emails.push(email);
      if (emails.length >= max_results) break;
    }
    return { emails, count: emails.length };
  },
};

const URL_CANDIDATE = /\b(?:https?:\/\/|www\.)[^\s<>"'`]+/giu;

function trimUrl(raw: string): string {
  let url = raw.replace(/[.,;:!?'"*]+$/, '');
  // Drop a closing bracket that has no opening one inside the URL (e.g. "(see https://x.org)").
  for (const [open, close] of [
    ['(', ')'],
    ['[', ']'],
    ['{', '}'],
  ] as const) {
    while (url.endsWith(close) && url.split(close).length > url.split(open).length) url = url.slice(0, -1).replace(/[.,;:!?]+$/, '');
  }
  return url;
}

const extractUrls: ActionDefinition = {
  name: 'extract_urls',
  description:
    'Finds http(s) URLs and bare www. links in free text, in order of appearance, with trailing punctuation and unmatched brackets removed. www. links get an https:// prefix. Returns each URL with its hostname.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['text'],
    properties: {
      text: { type: 'string', maxLength: MAX_TEXT, description: 'Text to search.' },
      unique: { type: 'boolean', default: true, description: 'Drop repeated URLs.' },
      max_results: { type: 'integer', minimum: 1, maximum: 10_000, default: 1000, description: 'Stop after this many URLs.' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['urls', 'count'],
    properties: {
      urls: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['url', 'hostname'],
          properties: { url: { type: 'string' }, hostname: { type: 'string' } },
        },
      },
      count: { type: 'integer', minimum: 0 },
    },
  },
  examples: [
    {
      input: {
        text: 'Docs: https://example.com/docs?page=2. Mirror (see www.example.org/a_(b)), and https://example.com/docs?page=2 again.',
      },
      output: {
        urls: [
          { url: 'https://example.com/docs?page=2', hostname: 'example.com' },
          { url: 'https://www.example.org/a_(b)', hostname: 'www.example.org' },
        ],
        count: 2,
      },
    },
  ],
  run({ text, unique = true, max_results = 1000 }: { text: string; unique?: boolean; max_results?: number }) {
    const urls: { url: string; hostname: string }[] = [];
    const seen = new Set<string>();
    for (const m of text.matchAll(URL_CANDIDATE)) {
      let url = trimUrl(m[0]);
      if (/^www\./i.test(url)) url = `https://${url}`;
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        continue;
      }
      if (!parsed.hostname.includes('.') && parsed.hostname !== 'localhost') continue;
      if (unique && seen.has(url)) continue;
      seen.add(url);
      urls.push({ url, hostname: parsed.hostname });
      if (urls.length >= max_results) break;
    }
    return { urls, count: urls.length };
  },
};

const wordSegmenter = new Intl.Segmenter(undefined, { granularity: 'word' });
const sentenceSegmenter = new Intl.Segmenter(undefined, { granularity: 'sentence' });
const graphemeSegmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

function graphemes(text: string): string[] {
  return Array.from(graphemeSegmenter.segment(text), (s) => s.segment);
}

const wordCount: ActionDefinition = {
  name: 'word_count',
  description:
    'Counts words, characters (user-perceived, so emoji count once), characters without whitespace, sentences, paragraphs and lines, and estimates reading time. Word and sentence boundaries follow Unicode rules, so it works for most languages.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['text'],
    properties: {
      text: { type: 'string', maxLength: MAX_TEXT, description: 'Text to measure.' },
      words_per_minute: {
        type: 'integer',
        minimum: 50,
        maximum: 1000,
        default: 200,
        description: 'Reading speed used for the reading-time estimate.',
      },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: [
      'words',
      'characters',
      'characters_no_spaces',
      'sentences',
      'paragraphs',
      'lines',
      'reading_time_seconds',
      'reading_time_minutes',
    ],
    properties: {
      words: { type: 'integer', minimum: 0 },
      characters: { type: 'integer', minimum: 0 },
      characters_no_spaces: { type: 'integer', minimum: 0 },
      sentences: { type: 'integer', minimum: 0 },
      paragraphs: { type: 'integer', minimum: 0 },
      lines: { type: 'integer', minimum: 0 },
      reading_time_seconds: { type: 'integer', minimum: 0 },
      reading_time_minutes: { type: 'integer', minimum: 0, description: 'Rounded up; 0 only for empty text.' },
    },
  },
  examples: [
    {
      input: { text: 'Hello world. This is a test!\n\nSecond paragraph here 🎉' },
      output: {
        words: 9,
        characters: 53,
        characters_no_spaces: 43,
        sentences: 3,
        paragraphs: 2,
        lines: 3,
        reading_time_seconds: 3,
        reading_time_minutes: 1,
      },
    },
  ],
  run({ text, words_per_minute = 200 }: { text: string; words_per_minute?: number }) {
    let words = 0;
    for (const s of wordSegmenter.segment(text)) if (s.isWordLike) words++;
    let sentences = 0;
    for (const s of sentenceSegmenter.segment(text)) if (/[\p{L}\p{N}]/u.test(s.segment)) sentences++;
    const chars = graphemes(text);
    const characters_no_spaces = chars.filter((c) => !/^\s+$/u.test(c)).length;
    const trimmed = text.trim();
    const paragraphs = trimmed ? trimmed.split(/\n\s*\n/).filter((p) => p.trim()).length : 0;
    const lines = text.length ? text.split(/\r\n|\r|\n/).length : 0;
    const reading_time_seconds = Math.ceil((words / words_per_minute) * 60);
    return {
      words,
      characters: chars.length,
      characters_no_spaces,
      sentences,
      paragraphs,
      lines,
      reading_time_seconds,
      reading_time_minutes: Math.ceil(reading_time_seconds / 60),
    };
  },
};

const MAX_CHANGES = 5000;

const diff: ActionDefinition = {
  name: 'diff',
  description:
    'Compares two texts: returns a unified diff patch (like `diff -u`), counts of added and removed lines, and the list of changes by line, word or character. Use to show what changed between two versions of a document or file.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['old', 'new'],
    properties: {
      old: { type: 'string', maxLength: 500_000, description: 'Original text.' },
      new: { type: 'string', maxLength: 500_000, description: 'Changed text.' },
      mode: {
        type: 'string',
        enum: ['lines', 'words', 'chars'],
        default: 'lines',
        description: 'Granularity of the `changes` list (the patch is always line-based).',
      },
      context: {
        type: 'integer',
        minimum: 0,
        maximum: 100,
        default: 3,
        description: 'Unchanged lines shown around each change in the patch.',
      },
      ignore_whitespace: {
        type: 'boolean',
        default: false,
        description: 'Ignore leading/trailing whitespace differences when comparing lines.',
      },
      old_name: { type: 'string', maxLength: 200, default: 'old', description: 'File name used in the patch header for the old text.' },
      new_name: { type: 'string', maxLength: 200, default: 'new', description: 'File name used in the patch header for the new text.' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['identical', 'patch', 'lines_added', 'lines_removed', 'changes', 'truncated'],
    properties: {
      identical: { type: 'boolean' },
      patch: { type: 'string', description: 'Unified diff; empty when the texts are identical.' },
      lines_added: { type: 'integer', minimum: 0 },
      lines_removed: { type: 'integer', minimum: 0 },
      changes: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['type', 'value'],
          properties: { type: { type: 'string', enum: ['added', 'removed', 'unchanged'] }, value: { type: 'string' } },
        },
      },
      truncated: { type: 'boolean', description: `True when the changes list was cut at ${MAX_CHANGES} entries.` },
    },
  },
  examples: [
    {
      input: { old: 'apple\nbanana\ncherry\n', new: 'apple\nblueberry\ncherry\ndate\n' },
      output: {
        identical: false,
        patch: '--- old\n+++ new\n@@ -1,3 +1,4 @@\n apple\n-banana\n+blueberry\n cherry\n+date\n',
        lines_added: 2,
        lines_removed: 1,
        changes: [
          { type: 'unchanged', value: 'apple\n' },
          { type: 'removed', value: 'banana\n' },
          { type: 'added', value: 'blueberry\n' },
          { type: 'unchanged', value: 'cherry\n' },
          { type: 'added', value: 'date\n' },
        ],
        truncated: false,
      },
    },
    {
      input: { old: 'The quick brown fox', new: 'The quick red fox', mode: 'words' },
      output: {
        identical: false,
        patch:
          '--- old\n+++ new\n@@ -1,1 +1,1 @@\n-The quick brown fox\n\\ No newline at end of file\n+The quick red fox\n\\ No newline at end of file\n',
        lines_added: 1,
        lines_removed: 1,
        changes: [
          { type: 'unchanged', value: 'The quick ' },
          { type: 'removed', value: 'brown' },
          { type: 'added', value: 'red' },
          { type: 'unchanged', value: ' fox' },
        ],
        truncated: false,
      },
    },
  ],
  timeoutMs: 15_000,
  run(input: {
    old: string;
    new: string;
    mode?: string;
    context?: number;
    ignore_whitespace?: boolean;
    old_name?: string;
    new_name?: string;
  }) {
    const { old: a, new: b, mode = 'lines', context = 3, ignore_whitespace = false, old_name = 'old', new_name = 'new' } = input;
    if (a === b)
      return {
        identical: true,
        patch: '',
        lines_added: 0,
        lines_removed: 0,
        changes: a ? [{ type: 'unchanged', value: a }] : [],
        truncated: false,
      };
    // One time budget for all diff passes, well inside the action's hard deadline.
    const deadline = Date.now() + 12_000;
    const budget = () => Math.max(1, deadline - Date.now());
    const tooDifferent = () => new ActionInputError('the texts are too large and too different to compare within the time limit');
    const lineChanges: ChangeObject<string>[] | undefined = diffLines(a, b, { ignoreWhitespace: ignore_whitespace, timeout: budget() });
    if (!lineChanges) throw tooDifferent();
    let lines_added = 0;
    let lines_removed = 0;
    for (const c of lineChanges) {
      if (c.added) lines_added += c.count ?? 0;
      else if (c.removed) lines_removed += c.count ?? 0;
    }
    const patchText = createTwoFilesPatch(old_name, new_name, a, b, undefined, undefined, {
      context,
      ignoreWhitespace: ignore_whitespace,
      timeout: budget(),
    });
    if (patchText === undefined) throw tooDifferent();
    const patch = patchText.replace(/^=+\n/, '');
    const detailed =
      mode === 'words' ? diffWords(a, b, { timeout: budget() }) : mode === 'chars' ? diffChars(a, b, { timeout: budget() }) : lineChanges;
    if (!detailed) throw tooDifferent();
    const changes = detailed
      .slice(0, MAX_CHANGES)
      .map((c) => ({ type: c.added ? 'added' : c.removed ? 'removed' : 'unchanged', value: c.value }));
    return { identical: false, patch, lines_added, lines_removed, changes, truncated: detailed.length > MAX_CHANGES };
  },
};

const truncate: ActionDefinition = {
  name: 'truncate',
  description:
    'Shortens text to at most max_length characters (user-perceived characters, so emoji and accents are never split), preferably at a word boundary, appending an ending such as "…". Text that already fits is returned unchanged.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['text', 'max_length'],
    properties: {
      text: { type: 'string', maxLength: MAX_TEXT, description: 'Text to shorten.' },
      max_length: { type: 'integer', minimum: 1, maximum: 1_000_000, description: 'Maximum length of the result, ending included.' },
      ending: { type: 'string', maxLength: 20, default: '…', description: 'Appended when the text is cut.' },
      word_boundary: { type: 'boolean', default: true, description: 'Cut at the last whitespace before the limit when there is one.' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['result', 'truncated', 'length'],
    properties: { result: { type: 'string' }, truncated: { type: 'boolean' }, length: { type: 'integer', minimum: 0 } },
  },
  examples: [
    {
      input: { text: 'The quick brown fox jumps over the lazy dog', max_length: 20 },
      output: { result: 'The quick brown fox…', truncated: true, length: 20 },
    },
    {
      input: { text: 'Supercalifragilistic', max_length: 10, ending: '...', word_boundary: false },
      output: { result: 'Superca...', truncated: true, length: 10 },
    },
  ],
  run({
    text,
    max_length,
    ending = '…',
    word_boundary = true,
  }: {
    text: string;
    max_length: number;
    ending?: string;
    word_boundary?: boolean;
  }) {
    const chars = graphemes(text);
    if (chars.length <= max_length) return { result: text, truncated: false, length: chars.length };
    const endChars = graphemes(ending);
    const room = Math.max(0, max_length - endChars.length);
    let cut = chars.slice(0, room);
    if (word_boundary && !/^\s$/u.test(chars[room] ?? '')) {
      let i = cut.length - 1;
      while (i > 0 && !/^\s+$/u.test(cut[i]!)) i--;
      if (i > 0) cut = cut.slice(0, i);
    }
    const head = cut.join('').trimEnd();
    const result = head + (room > 0 ? ending : endChars.slice(0, max_length).join(''));
    return { result, truncated: true, length: graphemes(result).length };
  },
};

const replace: ActionDefinition = {
  name: 'replace',
  description:
    'Finds and replaces text: a literal string (default) or a JavaScript regular expression with $1-style group references in the replacement. Returns the new text and the number of replacements. Invalid regular expressions are rejected.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['text', 'find', 'replacement'],
    properties: {
      text: { type: 'string', maxLength: MAX_TEXT, description: 'Text to edit.' },
      find: {
        type: 'string',
        minLength: 1,
        maxLength: 1000,
        description: 'Literal text, or a regular expression source when regex is true.',
      },
      replacement: { type: 'string', maxLength: 10_000, description: 'Replacement; with regex, $1, $<name> and $& refer to the match.' },
      regex: { type: 'boolean', default: false, description: 'Treat find as a regular expression.' },
      case_sensitive: { type: 'boolean', default: true },
      all: { type: 'boolean', default: true, description: 'Replace every occurrence (false: only the first).' },
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['result', 'replacements'],
    properties: { result: { type: 'string' }, replacements: { type: 'integer', minimum: 0 } },
  },
  examples: [
    {
      input: { text: 'cat, Cat, CAT', find: 'cat', replacement: 'dog', case_sensitive: false },
      output: { result: 'dog, dog, dog', replacements: 3 },
    },
    {
      input: { text: 'Dates: 2024-01-31 and 2025-12-01', find: '(\\d{4})-(\\d{2})-(\\d{2})', replacement: '$3/$2/$1', regex: true },
      output: { result: 'Dates: 31/01/2024 and 01/12/2025', replacements: 2 },
    },
  ],
  run({
    text,
    find,
    replacement,
    regex = false,
    case_sensitive = true,
    all = true,
  }: {
    text: string;
    find: string;
    replacement: string;
    regex?: boolean;
    case_sensitive?: boolean;
    all?: boolean;
  }) {
    const source = regex ? find : find.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    let re: RegExp;
    try {
      re = new RegExp(source, `${all ? 'g' : ''}${case_sensitive ? '' : 'i'}u`);
    } catch (e) {
      throw new ActionInputError(`invalid regular expression: ${(e as Error).message}`);
    }
    let replacements = 0;
    if (all) for (const _m of text.matchAll(re)) replacements++;
    else replacements = re.test(text) ? 1 : 0;
    re.lastIndex = 0;
    // Literal mode: a function replacement keeps "$" in the replacement text literal.
    const result = regex ? text.replace(re, replacement) : text.replace(re, () => replacement);
    return { result, replacements };
  },
};

const mod: ModuleDefinition = {
  name: 'text',
  version: '1.0.0',
  title: 'Text utilities',
  description:
    'Everyday text processing for agents: change case (camel, snake, kebab, title…), slugify, extract emails and URLs, count words and reading time, diff two texts as a unified patch, truncate at word boundaries, and find/replace with regular expressions.',
  category: 'text',
  tags: [
    'text',
    'string',
    'case',
    'slug',
    'slugify',
    'email',
    'url',
    'extract',
    'word count',
    'diff',
    'patch',
    'truncate',
    'regex',
    'replace',
  ],
  actions: [changeCase, slugify, extractEmails, extractUrls, wordCount, diff, truncate, replace],
};

export default mod;
