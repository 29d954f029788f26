import type { IncomingMessage } from 'node:http';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readJsonBody } from './request';

/** A request of `chunks` with a Content-Length header (or chunked when `chunked`). */
function request(chunks: string[], chunked = false): IncomingMessage {
  const length = chunks.reduce((n, c) => n + Buffer.byteLength(c), 0);
  const headers = chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(length) };
  return Object.assign(Readable.from(chunks.map((c) => Buffer.from(c))), { headers }) as unknown as IncomingMessage;
}

describe('readJsonBody', () => {
  it('parses JSON in one or several chunks, with or without a byte order mark', async () => {
    expect(await readJsonBody(request(['{"a":1}']))).toEqual({ kind: 'json', value: { a: 1 } });
    expect(await readJsonBody(request(['{"a":', '[1,2]}']))).toEqual({ kind: 'json', value: { a: [1, 2] } });
    expect(await readJsonBody(request(['\uFEFF{"a":1}']))).toEqual({ kind: 'json', value: { a: 1 } });
    expect(await readJsonBody(request(['{"a":', '1}'], true))).toEqual({ kind: 'json', value: { a: 1 } });
  });

  it('takes a blank body (whitespace of any kind, or only a byte order mark) as none', async () => {
    for (const blank of ['', ' \n\t ', '\u00a0', '\uFEFF', '\uFEFF  '])
      expect(await readJsonBody(request([blank]))).toEqual({ kind: 'empty' });
    const bare = Object.assign(Readable.from([]), { headers: {} }) as unknown as IncomingMessage;
    expect(await readJsonBody(bare)).toEqual({ kind: 'empty' });
  });

  it('refuses what is not JSON, and JSON nested too deep', async () => {
    expect(await readJsonBody(request(['{"a":']))).toMatchObject({
      kind: 'invalid',
      message: expect.stringMatching(/^The request body is not valid JSON/),
    });
    expect(await readJsonBody(request(['\uFEFF\uFEFF{}']))).toMatchObject({ kind: 'invalid' });
    expect(await readJsonBody(request(['['.repeat(200) + ']'.repeat(200)]))).toMatchObject({
      kind: 'invalid',
      message: expect.stringMatching(/deeper than/),
    });
  });

  it('stops at the limit', async () => {
    expect(await readJsonBody(request(['{"a":"0123456789"}']), 10)).toEqual({ kind: 'too_large' });
    expect(await readJsonBody(request(['{"a":', '"0123456789"}'], true), 10)).toEqual({ kind: 'too_large' });
  });

  it('stops waiting for a body that does not arrive in time: shorter than declared, or chunked without an end', async () => {
    const stalled = (headers: Record<string, string>) => {
      const stream = new PassThrough();
      stream.write('a=1&b=2');
      return Object.assign(stream, { headers }) as unknown as IncomingMessage;
    };
    const declaredMore: Record<string, string> = { 'content-length': '100', 'content-type': 'application/x-www-form-urlencoded' };
    for (const headers of [declaredMore, { 'transfer-encoding': 'chunked' }]) {
      const req = stalled(headers);
      expect(await readJsonBody(req, 1024, 50)).toEqual({
        kind: 'invalid',
        message: expect.stringMatching(/did not arrive/),
        timedOut: true,
      });
      expect(req.listenerCount('data')).toBe(0);
    }
  });

  it('fails at once for a request that closed before its body ended', async () => {
    const req = Object.assign(new PassThrough(), { headers: { 'content-length': '10' } }) as unknown as IncomingMessage;
    req.destroy();
    await expect(readJsonBody(req)).rejects.toThrow(/ended before its body/);
  });
});
