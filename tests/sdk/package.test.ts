/**
 * The SDK as it is published: `tsc` builds it (JavaScript and .d.ts) into a scratch directory laid
 * out like the installed package, and plain Node (no TypeScript loader) imports it through its
 * `exports` and runs its `bin`.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const sdk = path.resolve('packages/sdk');
const manifest = JSON.parse(readFileSync(path.join(sdk, 'package.json'), 'utf8'));

describe('@amp/sdk as published', () => {
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'amp-sdk-pkg-'));
    const pkg = path.join(dir, 'node_modules', '@amp', 'sdk');
    mkdirSync(pkg, { recursive: true });
    copyFileSync(path.join(sdk, 'package.json'), path.join(pkg, 'package.json'));
    const tsc = path.resolve('node_modules/typescript/bin/tsc');
    await run(process.execPath, [
      tsc,
      '-p',
      path.join(sdk, 'tsconfig.build.json'),
      '--outDir',
      path.join(pkg, 'dist'),
      '--sourceMap',
      'false',
      '--declarationMap',
      'false',
    ]);
    // The bin (bin/amp.mjs, which finds no sources to run here and takes dist/) as npm links it.
    mkdirSync(path.join(pkg, 'bin'));
    copyFileSync(path.join(sdk, 'bin', 'amp.mjs'), path.join(pkg, 'bin', 'amp.mjs'));
    mkdirSync(path.join(dir, 'node_modules', '.bin'));
    symlinkSync(path.join(pkg, manifest.bin.amp), path.join(dir, 'node_modules', '.bin', 'amp'));
  }, 120_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is an ESM package whose exports, types and bin are all built', () => {
    expect(manifest).toMatchObject({ name: '@amp/sdk', type: 'module' });
    const pkg = path.join(dir, 'node_modules', '@amp', 'sdk');
    for (const entry of Object.values(manifest.exports) as (string | Record<string, string>)[]) {
      for (const target of typeof entry === 'string' ? [entry] : Object.values(entry)) {
        expect(existsSync(path.join(pkg, target)), target).toBe(true);
      }
    }
    expect(readFileSync(path.join(pkg, manifest.bin.amp), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(Object.keys(manifest.dependencies ?? {})).toEqual([]);
    expect(manifest.peerDependenciesMeta).toMatchObject({
      '@modelcontextprotocol/sdk': { optional: true },
      '@a2a-js/sdk': { optional: true },
    });
  });

  it('plain Node imports it by name and runs the bin', async () => {
    const script = `
      import { Amp, ApiError, NotFoundError, Page } from '@amp/sdk';
      import { verifyWebhook, signWebhook } from '@amp/sdk/webhooks';
      const amp = new Amp({ apiKey: 'k' }, { baseUrl: 'http://127.0.0.1:1/' });
      const body = '{"id":"evt_1"}';
      const ts = Math.floor(Date.now() / 1000);
      const event = verifyWebhook(body, { 'webhook-id': 'evt_1', 'webhook-timestamp': String(ts), 'webhook-signature': signWebhook('whsec_c2VjcmV0', 'evt_1', ts, body) }, 'whsec_c2VjcmV0');
      console.log(JSON.stringify({ base: amp.baseUrl, sub: new NotFoundError(404, undefined, new Headers()) instanceof ApiError, page: typeof Page, event: event.id }));
    `;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: dir });
    expect(JSON.parse(stdout)).toEqual({ base: 'http://127.0.0.1:1', sub: true, page: 'function', event: 'evt_1' });

    const help = await run(process.execPath, [path.join(dir, 'node_modules', '.bin', 'amp'), '--help'], { cwd: dir });
    expect(help.stdout).toMatch(/^Usage: amp <command>/);
  });

  it('in this repository the bin runs the TypeScript sources, with no build', async () => {
    const help = await run(process.execPath, [path.join(sdk, 'bin', 'amp.mjs'), '--help']);
    expect(help.stdout).toMatch(/^Usage: amp <command>/);
    const wrong = await run(process.execPath, [path.join(sdk, 'bin', 'amp.mjs'), 'frobnicate']).catch((err: { code: number }) => err);
    expect(wrong).toMatchObject({ code: 2 });
  });
});
