import { francAll } from 'franc-min';
import { data as trigramData } from 'franc-min/data.js';
import { expressions } from 'franc-min/expressions.js';
import { ActionInputError, type ActionDefinition, type ModuleDefinition } from '../types';

const MAX_TEXT = 100_000;
/** franc looks at the start of long texts only; more adds time, not accuracy. */
const SAMPLE = 5000;

const displayNames = new Intl.DisplayNames(['en'], { type: 'language' });

/** ISO 639-3 codes franc-min can return. */
const SUPPORTED: string[] = [
  ...new Set([
    ...Object.values(trigramData).flatMap((langs) => Object.keys(langs)),
    ...Object.keys(expressions).filter((k) => /^[a-z]{3}$/.test(k)),
  ]),
].sort();

function twoLetter(code: string): string | null {
  try {
    const lang = new Intl.Locale(code).language;
    return lang.length === 2 ? lang : null;
  } catch {
    return null;
  }
}

/** ISO 639-1 (two letters) -> ISO 639-3 among the supported languages. */
const FROM_TWO: Map<string, string> = new Map();
for (const code of SUPPORTED) {
  const two = twoLetter(code);
  if (two && !FROM_TWO.has(two)) FROM_TWO.set(two, code);
}

function languageName(code: string): string | null {
  if (code === 'und') return null;
  try {
    const name = displayNames.of(code);
    return name && name !== code ? name : null;
  } catch {
    return null;
  }
}

function normalizeCode(code: string): string {
  const c = code.trim().toLowerCase();
  if (/^[a-z]{2}$/.test(c)) {
    const three = FROM_TWO.get(c);
    if (!three) throw new ActionInputError(`unsupported language code "${code}"; use an ISO 639-3 code such as "eng"`);
    return three;
  }
  if (!SUPPORTED.includes(c)) throw new ActionInputError(`unsupported language code "${code}"; supported: ${SUPPORTED.join(', ')}`);
  return c;
}

const round = (n: number) => Math.round(n * 10_000) / 10_000;

interface Candidate {
  language: string;
  iso639_1: string | null;
  name: string | null;
  score: number;
}

interface Detection {
  language: string;
  iso639_1: string | null;
  name: string | null;
  reliable: boolean;
  candidates: Candidate[];
}

function detectText(text: string, opts: { top?: number; only?: string[]; min_length?: number }): Detection {
  const only = opts.only?.map(normalizeCode);
  const ranked = francAll(text.slice(0, SAMPLE), { minLength: opts.min_length ?? 10, ...(only?.length ? { only } : {}) });
  const candidates = ranked
    .filter(([code]) => code !== 'und')
    .slice(0, opts.top ?? 3)
    .map(([language, score]) => ({ language, iso639_1: twoLetter(language), name: languageName(language), score: round(score) }));
  const best = candidates[0];
  if (!best) return { language: 'und', iso639_1: null, name: null, reliable: false, candidates: [] };
  const second = ranked[1]?.[1] ?? 0;
  // Relative scores: the winner is 1; a clear gap to the runner-up on enough text is a dependable answer.
  const reliable = text.trim().length >= 40 && (ranked.length === 1 || 1 - second >= 0.05);
  return { language: best.language, iso639_1: best.iso639_1, name: best.name, reliable, candidates };
}

const candidateSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['language', 'iso639_1', 'name', 'score'],
  properties: {
    language: { type: 'string', description: 'ISO 639-3 code.' },
    iso639_1: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'Two-letter code when the language has one.' },
    name: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'English name.' },
    score: { type: 'number', minimum: 0, maximum: 1, description: 'Similarity relative to the best candidate (which scores 1).' },
  },
};
const detectionSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['language', 'iso639_1', 'name', 'reliable', 'candidates'],
  properties: {
    language: {
      type: 'string',
      description: 'ISO 639-3 code of the most likely language, or "und" when the text is too short or has no letters.',
    },
    iso639_1: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    name: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    reliable: { type: 'boolean', description: 'At least 40 characters and a clear lead over the second candidate.' },
    candidates: { type: 'array', items: candidateSchema },
  },
};
const onlyInput = {
  type: 'array',
  maxItems: 100,
  items: { type: 'string', pattern: '^[a-zA-Z]{2,3}$' },
  description: 'Restrict to these languages (ISO 639-3 like "eng", or 639-1 like "en"): improves accuracy when you know the options.',
};
const minLengthInput = { type: 'integer', minimum: 1, maximum: 1000, default: 10, description: 'Texts shorter than this are "und".' };

const detect: ActionDefinition = {
  name: 'detect',
  description:
    'Detects the language of a text (franc, 80+ languages with 8M+ speakers), returning the ISO 639-3 code (e.g. "eng", "deu", "cmn"), the two-letter code, the English name, a reliability flag and the top candidates with relative scores. Needs a sentence or more; short texts give "und" or unreliable answers.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['text'],
    properties: {
      text: { type: 'string', maxLength: MAX_TEXT, description: 'Text to classify (only the first 5,000 characters are used).' },
      top: { type: 'integer', minimum: 1, maximum: 20, default: 3, description: 'How many candidates to return.' },
      only: onlyInput,
      min_length: minLengthInput,
    },
  },
  outputSchema: detectionSchema,
  examples: [
    {
      input: { text: 'Der schnelle braune Fuchs springt über den faulen Hund und läuft dann weiter in den Wald.', top: 2 },
      output: {
        language: 'deu',
        iso639_1: 'de',
        name: 'German',
        reliable: true,
        candidates: [
          { language: 'deu', iso639_1: 'de', name: 'German', score: 1 },
          { language: 'nld', iso639_1: 'nl', name: 'Dutch', score: 0.8317 },
        ],
      },
    },
    { input: { text: 'Hi!' }, output: { language: 'und', iso639_1: null, name: null, reliable: false, candidates: [] } },
  ],
  run(input: { text: string; top?: number; only?: string[]; min_length?: number }) {
    return detectText(input.text, input);
  },
};

const detectBatch: ActionDefinition = {
  name: 'detect_batch',
  description:
    'Detects the language of up to 100 texts at once (same method and output as detect, one result per text, in order). Use to sort or route many messages by language.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['texts'],
    properties: {
      texts: { type: 'array', minItems: 1, maxItems: 100, items: { type: 'string', maxLength: 20_000 } },
      top: { type: 'integer', minimum: 1, maximum: 10, default: 1 },
      only: onlyInput,
      min_length: minLengthInput,
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['results'],
    properties: { results: { type: 'array', items: detectionSchema } },
  },
  examples: [
    {
      input: {
        texts: ["Où est la gare la plus proche, s'il vous plaît ?", '¿Dónde está la estación de tren más cercana, por favor?'],
        only: ['fr', 'es', 'it', 'pt'],
      },
      output: {
        results: [
          {
            language: 'fra',
            iso639_1: 'fr',
            name: 'French',
            reliable: false,
            candidates: [{ language: 'fra', iso639_1: 'fr', name: 'French', score: 1 }],
          },
          {
            language: 'spa',
            iso639_1: 'es',
            name: 'Spanish',
            reliable: true,
            candidates: [{ language: 'spa', iso639_1: 'es', name: 'Spanish', score: 1 }],
          },
        ],
      },
    },
  ],
  run(input: { texts: string[]; top?: number; only?: string[]; min_length?: number }) {
    return { results: input.texts.map((t) => detectText(t, { ...input, top: input.top ?? 1 })) };
  },
};

const SCRIPTS = [
  'Latin',
  'Cyrillic',
  'Greek',
  'Arabic',
  'Hebrew',
  'Han',
  'Hiragana',
  'Katakana',
  'Hangul',
  'Devanagari',
  'Bengali',
  'Gurmukhi',
  'Gujarati',
  'Oriya',
  'Tamil',
  'Telugu',
  'Kannada',
  'Malayalam',
  'Sinhala',
  'Thai',
  'Lao',
  'Tibetan',
  'Myanmar',
  'Khmer',
  'Georgian',
  'Armenian',
  'Ethiopic',
  'Mongolian',
  'Thaana',
  'Syriac',
  'Cherokee',
  'Canadian_Aboriginal',
  'Tifinagh',
  'Javanese',
  'Balinese',
] as const;
const SCRIPT_RE = SCRIPTS.map((s) => [s, new RegExp(`\\p{Script=${s}}`, 'u')] as const);

const detectScript: ActionDefinition = {
  name: 'detect_script',
  description:
    'Identifies the writing systems of a text (Latin, Cyrillic, Greek, Arabic, Hebrew, Han, Hiragana, Katakana, Hangul, Devanagari, Thai and 25 more) by counting letters per Unicode script. Works on any length, even a single word; use it when detect is unreliable or to spot mixed-script text.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['text'],
    properties: { text: { type: 'string', maxLength: MAX_TEXT, description: 'Text to inspect.' } },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['script', 'mixed', 'letters', 'scripts'],
    properties: {
      script: {
        anyOf: [{ type: 'string' }, { type: 'null' }],
        description: 'Script with the most letters; null when there are no letters.',
      },
      mixed: { type: 'boolean', description: 'More than one script is present.' },
      letters: { type: 'integer', minimum: 0, description: 'Letters counted (digits, punctuation and spaces are ignored).' },
      scripts: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['script', 'count', 'ratio'],
          properties: {
            script: { type: 'string' },
            count: { type: 'integer', minimum: 1 },
            ratio: { type: 'number', minimum: 0, maximum: 1 },
          },
        },
      },
    },
  },
  examples: [
    {
      input: { text: 'Привет, world! 123' },
      output: {
        script: 'Cyrillic',
        mixed: true,
        letters: 11,
        scripts: [
          { script: 'Cyrillic', count: 6, ratio: 0.5455 },
          { script: 'Latin', count: 5, ratio: 0.4545 },
        ],
      },
    },
    {
      input: { text: '東京タワーへ行きます' },
      output: {
        script: 'Hiragana',
        mixed: true,
        letters: 9,
        scripts: [
          { script: 'Hiragana', count: 4, ratio: 0.4444 },
          { script: 'Han', count: 3, ratio: 0.3333 },
          { script: 'Katakana', count: 2, ratio: 0.2222 },
        ],
      },
    },
  ],
  run({ text }: { text: string }) {
    const counts = new Map<string, number>();
    let letters = 0;
    for (const ch of text) {
      // Letters only; shared marks like the Japanese long-vowel sign "ー" (Script=Common) belong to no one script.
      if (!/\p{L}/u.test(ch) || /[\p{Script=Common}\p{Script=Inherited}]/u.test(ch)) continue;
      const hit = SCRIPT_RE.find(([, re]) => re.test(ch));
      const name = hit ? hit[0] : 'Other';
      counts.set(name, (counts.get(name) ?? 0) + 1);
      letters++;
    }
    const scripts = [...counts.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([script, count]) => ({ script, count, ratio: round(count / letters) }));
    return { script: scripts[0]?.script ?? null, mixed: scripts.length > 1, letters, scripts };
  },
};

const isLanguage: ActionDefinition = {
  name: 'is_language',
  description:
    'Checks whether a text is written in a given language (ISO 639-3 "eng" or 639-1 "en"): true when that language is the best match. Also returns the detected language and the score of the requested one. Use to verify that a reply or document is in the expected language.',
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['text', 'language'],
    properties: {
      text: { type: 'string', maxLength: MAX_TEXT, description: 'Text to check.' },
      language: { type: 'string', pattern: '^[a-zA-Z]{2,3}$', description: 'Expected language code, e.g. "fra" or "fr".' },
      min_length: minLengthInput,
    },
  },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['match', 'language', 'detected', 'score', 'reliable'],
    properties: {
      match: { type: 'boolean' },
      language: { type: 'string', description: 'The requested language as ISO 639-3.' },
      detected: { type: 'string', description: 'The most likely language (ISO 639-3, "und" if undetermined).' },
      score: { type: 'number', minimum: 0, maximum: 1, description: 'Relative score of the requested language (1 = best match).' },
      reliable: { type: 'boolean' },
    },
  },
  examples: [
    {
      input: { text: 'Ceci est un texte écrit en français, avec quelques phrases simples.', language: 'fr' },
      output: { match: true, language: 'fra', detected: 'fra', score: 1, reliable: true },
    },
    {
      input: { text: 'This sentence is clearly written in the English language.', language: 'spa' },
      output: { match: false, language: 'spa', detected: 'eng', score: 0.6514, reliable: true },
    },
  ],
  run({ text, language, min_length }: { text: string; language: string; min_length?: number }) {
    const code = normalizeCode(language);
    const d = detectText(text, { top: SUPPORTED.length, min_length });
    const mine = d.candidates.find((c) => c.language === code);
    return { match: d.language === code, language: code, detected: d.language, score: mine?.score ?? 0, reliable: d.reliable };
  },
};

const supported: ActionDefinition = {
  name: 'supported_languages',
  description: 'Lists the languages detect can recognise, with ISO 639-3 and 639-1 codes and English names.',
  inputSchema: { type: 'object', additionalProperties: false, required: [], properties: {} },
  outputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['languages', 'count'],
    properties: {
      languages: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['language', 'iso639_1', 'name'],
          properties: {
            language: { type: 'string' },
            iso639_1: { anyOf: [{ type: 'string' }, { type: 'null' }] },
            name: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          },
        },
      },
      count: { type: 'integer', minimum: 1 },
    },
  },
  examples: [
    {
      input: {},
      output: {
        languages: SUPPORTED.map((c) => ({ language: c, iso639_1: twoLetter(c), name: languageName(c) })),
        count: SUPPORTED.length,
      },
    },
  ],
  run() {
    return { languages: SUPPORTED.map((c) => ({ language: c, iso639_1: twoLetter(c), name: languageName(c) })), count: SUPPORTED.length };
  },
};

const mod: ModuleDefinition = {
  name: 'language',
  version: '1.0.0',
  title: 'Language detection',
  description:
    'Detect the natural language of text (franc: ISO 639-3 codes, names, candidates), check a text is in an expected language, detect many texts at once, and identify writing systems (Latin, Cyrillic, Han, Arabic…) from Unicode scripts.',
  category: 'text',
  tags: ['language', 'detect', 'detection', 'franc', 'iso 639', 'locale', 'script', 'unicode', 'i18n', 'translation'],
  actions: [detect, detectBatch, detectScript, isLanguage, supported],
};

export default mod;
