/**
 * The generated OpenAPI document passes the ecosystem's linters: Redocly CLI (recommended
 * ruleset) and Spectral (`spectral:oas`), 0 errors and 0 warnings. The rules switched off are in
 * the committed redocly.yaml and .spectral.yaml, each with its reason; what they would have
 * checked is asserted here instead, except at the operations those files name.
 */
import { describe, expect, it } from 'vitest';
import { buildAdminOpenApiDocument, buildOpenApiDocument } from '../../src/server/openapi';
import { LINT_BASE_URL as PUBLIC_BASE_URL, lintsClean, operations } from '../openapi-lint';

type Json = Record<string, any>;

describe('OpenAPI document passes Redocly and Spectral', () => {
  const document = lintsClean('openapi', () => buildOpenApiDocument(PUBLIC_BASE_URL) as Json);

  it('the rule switched off in redocly.yaml and .spectral.yaml hold everywhere else', () => {
    const only405 = new Set(['GET /api/mcp', 'DELETE /api/mcp']);
    const discovery = new Set([
      'GET /api/openapi.json',
      'GET /openapi.json',
      'GET /api/openapi-auth.json',
      'GET /api/openapi-admin.json',
      'GET /api/schemas/workflow-definition.json',
      'GET /api/llms.txt',
      'GET /.well-known/agent.json',
      'GET /.well-known/agent-card.json',
    ]);
    for (const { where, op } of operations(document())) {
      const codes = Object.keys(op.responses);
      if (only405.has(where)) expect(codes, where).toContain('405');
      else
        expect(
          codes.some((c) => /^2\d\d$/.test(c)),
          `${where} has a 2xx`,
        ).toBe(true);
      if (!discovery.has(where))
        expect(
          codes.some((c) => /^4\d\d$/.test(c)),
          `${where} has a 4xx`,
        ).toBe(true);
    }
    for (const where of [...only405, ...discovery])
      expect(
        operations(document()).map((o) => o.where),
        where,
      ).toContain(where);
  });

  it('servers come from PUBLIC_BASE_URL', () => {
    expect(document().servers).toEqual([expect.objectContaining({ url: PUBLIC_BASE_URL })]);
    const other = buildOpenApiDocument('https://other.example.net') as Json;
    expect(other.servers.map((s: Json) => s.url)).toEqual(['https://other.example.net']);
    expect(JSON.stringify(document())).not.toContain('localhost');
  });
});

describe("The operator API's OpenAPI document passes Redocly and Spectral", () => {
  const document = lintsClean('openapi-admin', () => buildAdminOpenApiDocument(PUBLIC_BASE_URL) as Json);

  it('every operation has a 2xx and a 4xx, and the servers come from PUBLIC_BASE_URL', () => {
    const ops = operations(document());
    expect(ops.length).toBeGreaterThan(0);
    for (const { where, op } of ops) {
      const codes = Object.keys(op.responses);
      expect(
        codes.some((c) => /^2\d\d$/.test(c)),
        `${where} has a 2xx`,
      ).toBe(true);
      expect(
        codes.some((c) => /^4\d\d$/.test(c)),
        `${where} has a 4xx`,
      ).toBe(true);
    }
    expect(document().servers).toEqual([expect.objectContaining({ url: PUBLIC_BASE_URL })]);
  });
});
