import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { describeModule, testContext } from '../testing';
import { ActionInputError } from '../types';
import def, { MAX_OUTPUT_BYTES } from './index';

describeModule(def);

const ctx = testContext();
const action = (name: string) => {
  const a = def.actions.find((x) => x.name === name);
  if (!a) throw new Error(`no action ${name}`);
  return async (input: Record<string, unknown>): Promise<any> => a.run(input, ctx);
};

const text = 'Grüße 🌍 '.repeat(500);
const binary = Buffer.from(Array.from({ length: 256 }, (_, i) => i)).toString('base64');

describe('compress round trips', () => {
  it.each([
    ['gzip', 'gunzip', {}],
    ['deflate', 'inflate', {}],
    ['deflate', 'inflate', { raw: true }],
    ['brotli_compress', 'brotli_decompress', {}],
  ])('%s -> %s %o', async (c, d, extra) => {
    const packed = await action(c)({ data: text, level: 9, ...extra });
    expect(packed.bytes_out).toBeLessThan(packed.bytes_in);
    expect(await action(d)({ data: packed.data, ...extra })).toMatchObject({ data: text, encoding: 'utf8' });
    expect((await action('decompress')({ data: packed.data })).data).toBe(text);
    const bin = await action(c)({ data: binary, input_encoding: 'base64', ...extra });
    expect(await action(d)({ data: bin.data, ...extra })).toMatchObject({ data: binary, encoding: 'base64', bytes: 256 });
  });

  it('output_encoding utf8 refuses binary; base64 forces base64', async () => {
    const bin = await action('gzip')({ data: binary, input_encoding: 'base64' });
    await expect(action('gunzip')({ data: bin.data, output_encoding: 'utf8' })).rejects.toThrow(/not valid UTF-8/);
    const txt = await action('gzip')({ data: 'abc' });
    expect(await action('gunzip')({ data: txt.data, output_encoding: 'base64' })).toMatchObject({ data: 'YWJj', encoding: 'base64' });
  });

  it('empty input works', async () => {
    const packed = await action('gzip')({ data: '' });
    expect(packed.ratio).toBe(0);
    expect(await action('gunzip')({ data: packed.data })).toMatchObject({ data: '', bytes: 0 });
  });
});

describe('compress limits and errors', () => {
  it('stops a zip bomb at the output cap', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(MAX_OUTPUT_BYTES + 1024 * 1024)); // ~11 MB of zeros in ~11 kB
    expect(bomb.length).toBeLessThan(100_000);
    await expect(action('gunzip')({ data: bomb.toString('base64') })).rejects.toThrow(/larger than 10485760 bytes/);
    await expect(action('decompress')({ data: bomb.toString('base64') })).rejects.toThrow(/larger than/);
    const small = zlib.brotliCompressSync(Buffer.alloc(5000));
    await expect(action('brotli_decompress')({ data: small.toString('base64'), max_output_bytes: 4096 })).rejects.toBeInstanceOf(
      ActionInputError,
    );
  });

  it('rejects corrupt and non-base64 data as input errors', async () => {
    await expect(action('gunzip')({ data: 'aGVsbG8gd29ybGQ=' })).rejects.toBeInstanceOf(ActionInputError);
    await expect(action('inflate')({ data: 'aGVsbG8gd29ybGQ=' })).rejects.toBeInstanceOf(ActionInputError);
    await expect(action('brotli_decompress')({ data: '!!!' })).rejects.toThrow(/not valid base64/);
    await expect(action('decompress')({ data: 'aGVsbG8gd29ybGQ=' })).rejects.toBeInstanceOf(ActionInputError);
    const truncated = zlib.gzipSync('hello world').subarray(0, 12).toString('base64');
    await expect(action('gunzip')({ data: truncated })).rejects.toBeInstanceOf(ActionInputError);
  });

  it('crc32 of base64 bytes', async () => {
    expect(await action('crc32')({ data: '', input_encoding: 'utf8' })).toEqual({ crc32: 0, hex: '00000000' });
    expect((await action('crc32')({ data: 'aGVsbG8=', input_encoding: 'base64' })).hex).toBe('3610a686');
  });
});
