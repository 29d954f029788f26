import { writeFileSync } from 'node:fs';
import { buildOpenApiDocument } from '../src/server/openapi';
const doc = buildOpenApiDocument('http://localhost:3000');
writeFileSync('/tmp/openapi.json', JSON.stringify(doc));
console.log(JSON.stringify(doc).length);
