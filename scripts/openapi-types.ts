/**
 * `npm run openapi:types`: writes TypeScript types for the REST API, generated from the OpenAPI
 * document (itself generated from the routers), to tests/generated/openapi.d.ts. The typed-client
 * test regenerates them with `generateOpenApiTypes()` and compares, so the committed file cannot
 * drift from the routers: after changing a route, run this script and commit the result.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';
import { buildOpenApiDocument } from '../src/server/openapi';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Where the generated types live (committed). */
export const OPENAPI_TYPES_FILE = path.join(root, 'tests', 'generated', 'openapi.d.ts');

/** The generated types as text; deterministic for a given set of routers. */
export async function generateOpenApiTypes(): Promise<string> {
  // A copy: openapi-typescript must not see (or mutate) the document object shared with others.
  const doc = structuredClone(buildOpenApiDocument('http://localhost:3000')) as unknown as OpenAPI3;
  const ast = await openapiTS(doc, { alphabetize: true, silent: true });
  return COMMENT_HEADER + astToString(ast);
}

export async function writeOpenApiTypes(file = OPENAPI_TYPES_FILE): Promise<string> {
  const text = await generateOpenApiTypes();
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  writeOpenApiTypes().then(
    (file) => console.log(`wrote ${path.relative(root, file)}`),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
