import { describe, expect, it } from 'vitest';
import {
  checkDefinition,
  definitionChecker,
  fieldText,
  inputFromFields,
  inputNames,
  jsonLines,
  lineOf,
  type JsonObject,
} from '../../components/dashboard/workflows/definition';
import { templateText, WORKFLOW_TEMPLATES } from '../../components/dashboard/workflows/templates';
import { BUILTIN_MODULES } from '../../src/modules/registry';
import { definitionSchema } from '../../src/server/http/definition-schema';
import { buildOpenApiDocument } from '../../src/server/openapi';
import { createWorkflowInput } from '../../src/workflows/schema';
import { parseReference, referencesIn } from '../../src/workflows/templates';

/**
 * The dashboard's workflow editor checks a definition against the schema the served OpenAPI
 * document gives for creating a workflow; it must agree with the API's own zod schema, and its
 * templates must be definitions the API accepts.
 */
describe('workflow editor (dashboard)', () => {
  const openapi = JSON.parse(JSON.stringify(buildOpenApiDocument('http://localhost'))) as unknown;
  const schema = definitionSchema(openapi) as JsonObject | undefined;
  const check = definitionChecker(schema!);

  it('finds the definition schema in the OpenAPI document, self-contained', () => {
    expect(schema).toMatchObject({ type: 'object', required: expect.arrayContaining(['name', 'steps']) });
    expect(JSON.stringify(schema)).not.toContain('#/components/');
  });

  it('moves the component schemas a definition names into $defs', () => {
    const doc = {
      paths: {
        '/api/v1/workflows': {
          post: { requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Def' } } } } },
        },
      },
      components: {
        schemas: {
          Def: {
            type: 'object',
            properties: { steps: { type: 'array', items: { $ref: '#/components/schemas/Step' } } },
            required: ['steps'],
          },
          Step: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
          Other: { type: 'string' },
        },
      },
    };
    const own = definitionSchema(doc) as JsonObject;
    expect(Object.keys(own.$defs as object).sort()).toEqual(['Def', 'Step']);
    expect(definitionChecker(own)({ steps: [{}] })).toEqual([{ path: 'steps.0.id', message: '“id” is required (string).' }]);
    expect(definitionChecker(own)({ steps: [{ id: 'a' }] })).toEqual([]);
  });

  it('reads a union of step kinds as the closest kind, or says which kinds there are', () => {
    const step = (kind: string, extra: Record<string, unknown>, required: string[]) => ({
      type: 'object',
      properties: { kind: { type: 'string', const: kind }, id: { type: 'string', pattern: '^[a-z]+$' }, ...extra },
      required: ['kind', 'id', ...required],
      additionalProperties: false,
    });
    const own = {
      type: 'object',
      properties: {
        steps: {
          type: 'array',
          items: {
            oneOf: [
              step('action', { module: { type: 'string' } }, ['module']),
              step('sleep', { for: { type: 'string', pattern: '^\\d+[smh]$', description: 'How long to sleep, e.g. `15m`' } }, ['for']),
              step('approval', { prompt: { type: 'string' } }, ['prompt']),
            ],
          },
        },
      },
    };
    const check = definitionChecker(own);
    expect(check({ steps: [{ kind: 'sleep', id: 'a' }] })).toEqual([{ path: 'steps.0.for', message: '“for” is required (string).' }]);
    expect(check({ steps: [{ kind: 'sleep', id: 'a', for: '5 minutes' }] })).toEqual([
      { path: 'steps.0.for', message: '“for” does not have the expected form /^\\d+[smh]$/. How long to sleep, e.g. 15m.' },
    ]);
    expect(check({ steps: [{ kind: 'nap', id: 'a' }] })).toEqual([
      { path: 'steps.0.kind', message: '“kind” must be "action", "sleep" or "approval".' },
    ]);
    expect(check({ steps: [{ kind: 'action', id: 'A', module: 'text' }] })).toEqual([
      { path: 'steps.0.id', message: expect.stringContaining('does not have the expected form') },
    ]);
  });

  const samples: unknown[] = [
    {},
    { name: 'x', steps: [] },
    { name: 'x', steps: [{ id: '1a', module: 'text', action: 'slugify', extra: 1 }] },
    { name: 'x', steps: [{ id: 'a', module: 'text', action: 'slugify', retry: { max_attempts: 20 } }] },
    { name: 'x', steps: [{ id: 'a', module: 'text', action: 'slugify', depends_on: 'b' }] },
    { name: 'x', steps: [{ id: 'a', module: 'Text', action: 'slugify', timeout_ms: 0 }] },
    { name: 'x', steps: [{ id: 'a', module: 'text', action: 'slugify', input: { text: '{{input.title}}' } }] },
    { name: 'x', steps: [{ id: 'a', kind: 'nope', module: 'text', action: 'slugify' }] },
    { name: 'x', steps: [{ id: 'a', kind: 'wait_for_event', event: 'execution.failed' }] },
    { name: 'x', steps: [{ id: 'a', kind: 'sleep', for: '15m' }] },
  ];
  it.each(samples.map((s) => [JSON.stringify(s), s]))('agrees with the API on %s', (_, sample) => {
    const api = createWorkflowInput.safeParse(sample);
    const mine = check(sample);
    expect(mine.length === 0).toBe(api.success);
    if (!api.success) {
      // The same places are named (an unknown key is named by the key itself here).
      const apiPaths = new Set(
        api.error.issues
          .flatMap((i) => (i.code === 'unrecognized_keys' ? i.keys.map((k) => [...i.path, k]) : [i.path]))
          .map((p) => p.join('.')),
      );
      expect(new Set(mine.map((p) => p.path))).toEqual(apiPaths);
    }
  });

  it('says where each problem is in the text', () => {
    const text =
      '{\n  "name": "x",\n  "steps": [\n    {\n      "id": "1a",\n      "module": "text",\n      "action": "slugify"\n    }\n  ]\n}';
    expect(checkDefinition(text, check).problems).toEqual([
      { path: 'steps.0.id', message: expect.stringContaining('expected form'), line: 5 },
    ]);
    const lines = jsonLines(text);
    expect(lineOf(lines, 'steps.0.depends_on.0')).toBe(4);
    expect(lineOf(lines, 'description')).toBe(1);
    expect(checkDefinition('{\n  "name": "x",\n  steps: []\n}', check).problems).toEqual([
      { path: '', message: expect.stringMatching(/^This is not valid JSON/), line: 3 },
    ]);
    expect(checkDefinition('[]', check).problems[0]!.message).toMatch(/must be a JSON object/);
  });

  it.each(WORKFLOW_TEMPLATES.map((t) => [t.id, t]))('template %s is a definition the API accepts', (_, template) => {
    const { value, problems } = checkDefinition(templateText(template), check);
    expect(problems).toEqual([]);
    expect(createWorkflowInput.safeParse(value).success).toBe(true);
    for (const step of template.definition.steps) {
      const mod = BUILTIN_MODULES.find((m) => m.name === step.module);
      expect(
        mod?.actions.map((a) => a.name),
        `${String(step.module)}.${String(step.action)}`,
      ).toContain(step.action);
      for (const ref of referencesIn(step.input)) expect(typeof parseReference(ref), ref).toBe('object');
    }
  });

  it('collects the run input the steps read, as the API parses references', () => {
    const steps = [
      { input: { a: '{{input.title}}', b: 'x {{ input.user.name }} {{steps.s.output.x}}', c: ['{{input.title}}', { d: '{{input}}' }] } },
      { input: { e: '{{input..bad}}', f: 42 } },
    ];
    expect(inputNames(steps)).toEqual({ names: ['title', 'user'], whole: true });
    const api = steps.flatMap((s) => referencesIn(s.input)).map((body) => parseReference(body));
    const names = api.flatMap((r) => (typeof r === 'object' && r.root === 'input' && r.path.length ? [r.path[0]] : []));
    expect([...new Set(names)]).toEqual(['title', 'user']);
  });

  it('sends a field typed when it reads as JSON, as text otherwise', () => {
    expect(inputFromFields({ a: 'Hello', b: '42', c: 'true', d: '{"x":1}', e: '"42"', f: '', g: '[1]' })).toEqual({
      a: 'Hello',
      b: 42,
      c: true,
      d: { x: 1 },
      e: '42',
      g: [1],
    });
    expect(['Hello', '42', 7, { x: 1 }].map(fieldText)).toEqual(['Hello', '"42"', '7', '{"x":1}']);
  });
});
