// The server's production build: server.ts and the bench's targets bundled by esbuild into
// .amp/build/ (packages stay in node_modules), so `npm start` runs plain JavaScript without tsx's
// loader, whose transform cache and source maps take part of the live heap (docs/performance.md,
// Memory). `npm start` and `npm run bench` build first (well under a second), so what runs is
// always the checkout's code; `npm run dev` and the tests run the sources.
//
// Code splitting keeps the lazy imports lazy: without it, esbuild hoists the packages of every
// lazily imported module (the module packs, oidc-provider, pdfkit) into the entry.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BUILD_DIR = path.join(root, '.amp', 'build');
/**
 * esbuild's outdir, at the depth of a build's BUILD_DIR/<hash>/ (nothing is written here: the
 * files go to the hash directory): the sources' addresses are computed relative to it.
 */
const OUT_DIR = path.join(BUILD_DIR, 'current');

/**
 * In the bundle, `import.meta.url` is a chunk's address in .amp/build; each source file's
 * `import.meta.url` is made its own address again (relative to the chunk, so the checkout can
 * move), so `new URL('./pglite-worker.mjs', import.meta.url)` and the like still name the files
 * beside the source: the workers and child processes run from src/ as before.
 */
const sourceAddresses = {
  name: 'source-addresses',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const fromBuild = path.relative(OUT_DIR, args.path).split(path.sep).join('/');
      return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(fromBuild)}, import.meta.url).href`), loader: 'ts' };
    });
  },
};

/**
 * Builds into BUILD_DIR/<hash>/, named by what was built, and resolves with that build's server
 * entry. A build is written to a temporary directory and renamed into place, and never rewritten:
 * a running server loads its lazy chunks later, so a start of changed code (or two starts at once)
 * must not replace the files under it.
 */
export async function buildServer() {
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { server: 'server.ts', 'bench-target': 'bench/target.ts' },
    outdir: OUT_DIR,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    packages: 'external',
    // Class and function names stay as written (error names, logs), as under tsx.
    keepNames: true,
    plugins: [sourceAddresses],
    logLevel: 'warning',
    write: false,
  });
  const hash = createHash('sha256');
  for (const file of result.outputFiles) hash.update(path.relative(OUT_DIR, file.path)).update(file.contents);
  const dir = path.join(BUILD_DIR, hash.digest('hex').slice(0, 16));
  if (!existsSync(dir)) {
    const temporary = `${dir}.${process.pid}.tmp`;
    await rm(temporary, { recursive: true, force: true });
    await mkdir(temporary, { recursive: true });
    await Promise.all(result.outputFiles.map((file) => writeFile(path.join(temporary, path.relative(OUT_DIR, file.path)), file.contents)));
    // Another start may have put the same build in place meanwhile: then its copy stays.
    await rename(temporary, dir).catch(() => rm(temporary, { recursive: true, force: true }));
  }
  return path.join(dir, 'server.mjs');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const started = Date.now();
  const server = await buildServer();
  console.log(`built ${path.relative(root, path.dirname(server))} in ${Date.now() - started} ms`);
}
