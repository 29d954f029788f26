#!/usr/bin/env node
// The `amp` command. In this repository (the TypeScript sources and tsx beside them) it runs the
// sources, so it needs no build and is never stale; as a published package, the built `dist/`.
import { existsSync } from 'node:fs';

async function load() {
  const source = new URL('../src/cli.ts', import.meta.url);
  if (existsSync(source)) {
    try {
      const { register } = await import('tsx/esm/api');
      register();
      return await import(source.href);
    } catch (err) {
      if (err?.code !== 'ERR_MODULE_NOT_FOUND') throw err;
    }
  }
  return import(new URL('../dist/cli.js', import.meta.url).href);
}

await (await load()).main();
