/**
 * `npm run generate -w packages/sdk`: writes the SDK's types (src/generated/openapi.ts) from the
 * service's OpenAPI document with openapi-typescript.
 *
 * - no argument: the document is built in-process from the routers (`buildOpenApiDocument`),
 *   the same one a running service serves at `/openapi.json`;
 * - `--url <base>`: the document is read from a running service, `${base}/openapi.json`.
 *
 * The output does not depend on the service's address (openapi-typescript emits no `servers`), so
 * both give the same file. tests/sdk/sdk.test.ts regenerates it from a live service and compares.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Where the generated types live (committed). */
export const SDK_TYPES_FILE = path.join(packageRoot, 'src', 'generated', 'openapi.ts');

const HEADER = `${COMMENT_HEADER}// Regenerate with \`npm run generate -w packages/sdk\` after changing a route.\n\n`;

/** The generated types for `doc` as text; deterministic for a given document. */
export async function generateSdkTypes(doc: unknown): Promise<string> {
  // A copy: openapi-typescript must not see (or mutate) a document object shared with others.
  const ast = await openapiTS(structuredClone(doc) as OpenAPI3, { alphabetize: true, silent: true });
  return HEADER + astToString(ast);
}

/** The document a running service serves at `${baseUrl}/openapi.json`. */
export async function fetchOpenApiDocument(baseUrl: string): Promise<unknown> {
  const res = await fetch(`${baseUrl.replace(/\/+$/, '')}/openapi.json`);
  if (!res.ok) throw new Error(`GET ${baseUrl}/openapi.json answered ${res.status}`);
  return res.json();
}

/** The document built in-process from the routers (no service needed). */
export async function buildLocalOpenApiDocument(): Promise<unknown> {
  const { buildOpenApiDocument } = await import('../../../src/server/openapi');
  return buildOpenApiDocument('http://localhost:3000');
}

async function main(argv: string[]): Promise<void> {
  const i = argv.indexOf('--url');
  const url = i >= 0 ? argv[i + 1] : undefined;
  if (i >= 0 && !url) throw new Error('--url needs the service base URL, e.g. --url http://localhost:3000');
  const doc = url ? await fetchOpenApiDocument(url) : await buildLocalOpenApiDocument();
  mkdirSync(path.dirname(SDK_TYPES_FILE), { recursive: true });
  writeFileSync(SDK_TYPES_FILE, await generateSdkTypes(doc));
  console.log(`wrote ${path.relative(process.cwd(), SDK_TYPES_FILE)}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
