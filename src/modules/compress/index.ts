import zlib from 'node:zlib';
import { ActionInputError, type JsonSchema, type ModuleDefinition } from '../types';

/** Largest decompressed output (zip-bomb guard): zlib stops inflating past it. */
export const MAX_OUTPUT_BYTES = 10 * 1024 * 1024;
const MAX_INPUT_CHARS = 1_400_000;

type InEncoding = 'utf8' | 'base64';
type OutEncoding = 'auto' | 'utf8' | 'base64';

function decodeBase64(value: string, field = 'data'): Buffer {
  const compact = value.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact) || compact.replace(/=+$/, '').length % 4 === 1)
    throw new ActionInputError(`${field} is not valid base64.`);
  return Buffer.from(compact, compact.includes('-') || compact.includes('_') ? 'base64url' : 'base64');
}

const readInput = (data: string, encoding: InEncoding | undefined) =>
  encoding === 'base64' ? decodeBase64(data) : Buffer.from(data, 'utf8');

function isUtf8(buf: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(buf);
    return true;
  } catch {
    return false;
  }
}

function compressed(input: Buffer, output: Buffer) {
  return {
    data: output.toString('base64'),
    bytes_in: input.length,
    bytes_out: output.length,
    ratio: input.length === 0 ? 0 : Math.round((output.length / input.length) * 10_000) / 10_000,
  };
}

function decompressed(out: Buffer, encoding: OutEncoding | undefined, format: string) {
  const asText = encoding === 'utf8' || ((encoding ?? 'auto') === 'auto' && isUtf8(out));
  if (encoding === 'utf8' && !isUtf8(out))
    throw new ActionInputError('The decompressed data is not valid UTF-8 text; ask for output_encoding "base64".');
  return { data: out.toString(asText ? 'utf8' : 'base64'), encoding: asText ? 'utf8' : 'base64', bytes: out.length, format };
}

const NAMES: Record<string, string> = { gzip: 'gzip', deflate: 'zlib/deflate', deflate_raw: 'raw deflate', brotli: 'brotli' };

function inflateWith(kind: 'gzip' | 'deflate' | 'deflate_raw' | 'brotli', input: Buffer, maxOutput: number): Buffer {
  const opts = { maxOutputLength: maxOutput };
  try {
    switch (kind) {
      case 'gzip':
        return zlib.gunzipSync(input, opts);
      case 'deflate':
        return zlib.inflateSync(input, opts);
      case 'deflate_raw':
        return zlib.inflateRawSync(input, opts);
      default:
        return zlib.brotliDecompressSync(input, opts);
    }
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError) {
      throw new ActionInputError(`The decompressed data is larger than ${maxOutput} bytes (the limit).`);
    }
    throw new ActionInputError(`The data is not valid ${NAMES[kind]} data${e.code ? ` (${e.code})` : ''}.`);
  }
}

// ---------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------

const compressInput = (levelSchema: JsonSchema, extra: Record<string, JsonSchema> = {}): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  required: ['data'],
  properties: {
    data: {
      type: 'string',
      maxLength: MAX_INPUT_CHARS,
      description: 'The data to compress: text, or base64 bytes with input_encoding "base64".',
    },
    input_encoding: { type: 'string', enum: ['utf8', 'base64'], default: 'utf8', description: 'How `data` is encoded.' },
    level: levelSchema,
    ...extra,
  },
});

const compressOutput: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['data', 'bytes_in', 'bytes_out', 'ratio'],
  properties: {
    data: { type: 'string', description: 'The compressed bytes, base64.' },
    bytes_in: { type: 'integer' },
    bytes_out: { type: 'integer' },
    ratio: { type: 'number', description: 'bytes_out / bytes_in (smaller is better).' },
  },
};

const decompressInput = (extra: Record<string, JsonSchema> = {}): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  required: ['data'],
  properties: {
    data: { type: 'string', maxLength: MAX_INPUT_CHARS, description: 'The compressed bytes, base64.' },
    output_encoding: {
      type: 'string',
      enum: ['auto', 'utf8', 'base64'],
      default: 'auto',
      description: 'auto: UTF-8 text when the bytes are valid UTF-8, else base64.',
    },
    max_output_bytes: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_OUTPUT_BYTES,
      default: MAX_OUTPUT_BYTES,
      description: 'Refuse output larger than this (zip-bomb guard).',
    },
    ...extra,
  },
});

const decompressOutput: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['data', 'encoding', 'bytes', 'format'],
  properties: {
    data: { type: 'string' },
    encoding: { type: 'string', enum: ['utf8', 'base64'], description: 'How `data` is encoded.' },
    bytes: { type: 'integer', description: 'Decompressed size.' },
    format: { type: 'string', enum: ['gzip', 'deflate', 'deflate_raw', 'brotli'] },
  },
};

const zlibLevel = { type: 'integer', minimum: 0, maximum: 9, default: 6, description: '0 (store) to 9 (smallest, slowest).' };
const rawField = { type: 'boolean', default: false, description: 'Raw deflate stream without the zlib header and checksum.' };

const SAMPLE = 'hello hello hello hello hello hello hello hello';

const compress: ModuleDefinition = {
  name: 'compress',
  version: '1.0.0',
  title: 'Compression',
  description:
    'Compress and decompress data with gzip, zlib/deflate and brotli (Node zlib), base64 in and out; auto-detect the format when decompressing; CRC-32 checksums. Decompression is capped at 10 MB against zip bombs.',
  category: 'utilities',
  tags: ['compression', 'gzip', 'gunzip', 'deflate', 'inflate', 'zlib', 'brotli', 'base64', 'crc32'],
  actions: [
    {
      name: 'gzip',
      description:
        'Compress text or base64 bytes with gzip (RFC 1952), returning base64. Use for .gz files or Content-Encoding: gzip bodies.',
      inputSchema: compressInput(zlibLevel),
      outputSchema: compressOutput,
      examples: [
        {
          input: { data: SAMPLE },
          output: { data: 'H4sIAAAAAAAAA8tIzcnJV8gglgQAanYsuS8AAAA=', bytes_in: 47, bytes_out: 29, ratio: 0.617 },
        },
      ],
      run(input: { data: string; input_encoding?: InEncoding; level?: number }) {
        const buf = readInput(input.data, input.input_encoding);
        return compressed(buf, zlib.gzipSync(buf, { level: input.level ?? 6 }));
      },
    },
    {
      name: 'gunzip',
      description: 'Decompress gzip data (base64) back to text or bytes, refusing output above max_output_bytes.',
      inputSchema: decompressInput(),
      outputSchema: decompressOutput,
      examples: [
        {
          input: { data: 'H4sIAAAAAAAAA8tIzcnJV8gglgQAanYsuS8AAAA=' },
          output: { data: SAMPLE, encoding: 'utf8', bytes: 47, format: 'gzip' },
        },
      ],
      run(input: { data: string; output_encoding?: OutEncoding; max_output_bytes?: number }) {
        return decompressed(
          inflateWith('gzip', decodeBase64(input.data), input.max_output_bytes ?? MAX_OUTPUT_BYTES),
          input.output_encoding,
          'gzip',
        );
      },
    },
    {
      name: 'deflate',
      description: 'Compress with deflate in a zlib wrapper (RFC 1950), or raw deflate (RFC 1951) with raw: true; returns base64.',
      inputSchema: compressInput(zlibLevel, { raw: rawField }),
      outputSchema: compressOutput,
      examples: [
        { input: { data: SAMPLE }, output: { data: 'eJzLSM3JyVfIIJYEAKOWEYE=', bytes_in: 47, bytes_out: 17, ratio: 0.3617 } },
        { input: { data: SAMPLE, raw: true }, output: { data: 'y0jNyclXyCCWBAA=', bytes_in: 47, bytes_out: 11, ratio: 0.234 } },
      ],
      run(input: { data: string; input_encoding?: InEncoding; level?: number; raw?: boolean }) {
        const buf = readInput(input.data, input.input_encoding);
        const opts = { level: input.level ?? 6 };
        return compressed(buf, input.raw ? zlib.deflateRawSync(buf, opts) : zlib.deflateSync(buf, opts));
      },
    },
    {
      name: 'inflate',
      description: 'Decompress zlib/deflate data (base64), or raw deflate with raw: true, refusing output above max_output_bytes.',
      inputSchema: decompressInput({ raw: rawField }),
      outputSchema: decompressOutput,
      examples: [{ input: { data: 'eJzLSM3JyVfIIJYEAKOWEYE=' }, output: { data: SAMPLE, encoding: 'utf8', bytes: 47, format: 'deflate' } }],
      run(input: { data: string; output_encoding?: OutEncoding; max_output_bytes?: number; raw?: boolean }) {
        const kind = input.raw ? 'deflate_raw' : 'deflate';
        return decompressed(
          inflateWith(kind, decodeBase64(input.data), input.max_output_bytes ?? MAX_OUTPUT_BYTES),
          input.output_encoding,
          kind,
        );
      },
    },
    {
      name: 'brotli_compress',
      description:
        'Compress with brotli (RFC 7932; best ratio for text, Content-Encoding: br), returning base64. Quality 0-11; higher is smaller but slower.',
      inputSchema: compressInput(
        { type: 'integer', minimum: 0, maximum: 11, default: 6, description: 'Brotli quality 0-11 (11 is slowest).' },
        { mode: { type: 'string', enum: ['generic', 'text'], default: 'generic', description: 'Hint: text for UTF-8 text.' } },
      ),
      outputSchema: compressOutput,
      examples: [{ input: { data: SAMPLE }, output: { data: 'Gy4AACRAahBn6vCcPgA=', bytes_in: 47, bytes_out: 14, ratio: 0.2979 } }],
      run(input: { data: string; input_encoding?: InEncoding; level?: number; mode?: 'generic' | 'text' }) {
        const buf = readInput(input.data, input.input_encoding);
        const out = zlib.brotliCompressSync(buf, {
          params: {
            [zlib.constants.BROTLI_PARAM_QUALITY]: input.level ?? 6,
            [zlib.constants.BROTLI_PARAM_MODE]:
              input.mode === 'text' ? zlib.constants.BROTLI_MODE_TEXT : zlib.constants.BROTLI_MODE_GENERIC,
            [zlib.constants.BROTLI_PARAM_SIZE_HINT]: buf.length,
          },
        });
        return compressed(buf, out);
      },
    },
    {
      name: 'brotli_decompress',
      description: 'Decompress brotli data (base64) back to text or bytes, refusing output above max_output_bytes.',
      inputSchema: decompressInput(),
      outputSchema: decompressOutput,
      examples: [{ input: { data: 'Gy4AACRAahBn6vCcPgA=' }, output: { data: SAMPLE, encoding: 'utf8', bytes: 47, format: 'brotli' } }],
      run(input: { data: string; output_encoding?: OutEncoding; max_output_bytes?: number }) {
        return decompressed(
          inflateWith('brotli', decodeBase64(input.data), input.max_output_bytes ?? MAX_OUTPUT_BYTES),
          input.output_encoding,
          'brotli',
        );
      },
    },
    {
      name: 'decompress',
      description:
        'Decompress base64 data whose format is unknown: detects gzip and zlib by their headers and otherwise tries brotli, then raw deflate. Reports the format found.',
      inputSchema: decompressInput(),
      outputSchema: decompressOutput,
      examples: [
        {
          input: { data: 'H4sIAAAAAAAAA8tIzcnJV8gglgQAanYsuS8AAAA=' },
          output: { data: SAMPLE, encoding: 'utf8', bytes: 47, format: 'gzip' },
        },
        { input: { data: 'Gy4AACRAahBn6vCcPgA=' }, output: { data: SAMPLE, encoding: 'utf8', bytes: 47, format: 'brotli' } },
      ],
      run(input: { data: string; output_encoding?: OutEncoding; max_output_bytes?: number }) {
        const buf = decodeBase64(input.data);
        const max = input.max_output_bytes ?? MAX_OUTPUT_BYTES;
        const [b0, b1] = [buf[0] ?? 0, buf[1] ?? 0];
        let kinds: ('gzip' | 'deflate' | 'deflate_raw' | 'brotli')[];
        if (b0 === 0x1f && b1 === 0x8b) kinds = ['gzip'];
        else if ((b0 & 0x0f) === 8 && b0 >> 4 <= 7 && ((b0 << 8) | b1) % 31 === 0) kinds = ['deflate', 'brotli', 'deflate_raw'];
        else kinds = ['brotli', 'deflate_raw'];
        let lastError: unknown;
        for (const kind of kinds) {
          try {
            return decompressed(inflateWith(kind, buf, max), input.output_encoding, kind);
          } catch (err) {
            if (err instanceof ActionInputError && /larger than/.test(err.message)) throw err;
            lastError = err;
          }
        }
        if (kinds.length === 1) throw lastError;
        throw new ActionInputError('The data is not gzip, zlib, brotli or raw deflate data.');
      },
    },
    {
      name: 'crc32',
      description: 'CRC-32 checksum (the one in gzip, zip and PNG) of text or base64 bytes, as an unsigned integer and 8-digit hex.',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['data'],
        properties: {
          data: { type: 'string', maxLength: MAX_INPUT_CHARS, description: 'Text, or base64 bytes with input_encoding "base64".' },
          input_encoding: { type: 'string', enum: ['utf8', 'base64'], default: 'utf8', description: 'How `data` is encoded.' },
        },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['crc32', 'hex'],
        properties: { crc32: { type: 'integer', minimum: 0 }, hex: { type: 'string', pattern: '^[0-9a-f]{8}$' } },
      },
      examples: [{ input: { data: 'The quick brown fox jumps over the lazy dog' }, output: { crc32: 1095738169, hex: '414fa339' } }],
      run(input: { data: string; input_encoding?: InEncoding }) {
        const crc = zlib.crc32(readInput(input.data, input.input_encoding));
        return { crc32: crc, hex: crc.toString(16).padStart(8, '0') };
      },
    },
  ],
};

export default compress;
