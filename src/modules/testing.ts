/**
 * Shared checks for module packs, used by each module's test: names, schemas, examples (input
 * valid, output valid against output_schema, and exactly equal unless nondeterministic).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { portabilityIssues } from './json-schema';
import type { ActionContext, ModuleDefinition } from './types';

export const MODULE_NAME = /^[a-z][a-z0-9-]{1,29}$/;
export const ACTION_NAME = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

export function newAjv() {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  return ajv;
}

export function testContext(overrides: Partial<ActionContext> = {}): ActionContext {
  return { allowPrivateNetwork: false, signal: new AbortController().signal, ...overrides };
}

/** Registers the standard tests of one module with vitest. */
export function describeModule(def: ModuleDefinition, ctx: ActionContext = testContext()) {
  describe(`module ${def.name}`, () => {
    const ajv = newAjv();

    it('has a valid name, metadata and at least one action', () => {
      expect(def.name).toMatch(MODULE_NAME);
      expect(def.version).toMatch(/^\d+\.\d+\.\d+$/);
      expect(def.title.length).toBeGreaterThan(0);
      expect(def.description.length).toBeGreaterThan(20);
      expect(def.actions.length).toBeGreaterThan(0);
      expect(new Set(def.actions.map((a) => a.name)).size).toBe(def.actions.length);
    });

    for (const action of def.actions) {
      describe(`action ${action.name}`, () => {
        it('has a valid name, description, schemas and examples', () => {
          expect(action.name).toMatch(ACTION_NAME);
          expect(action.name.length).toBeLessThanOrEqual(30);
          expect(action.description.length).toBeGreaterThan(15);
          expect(action.inputSchema.type).toBe('object');
          ajv.compile(action.inputSchema);
          ajv.compile(action.outputSchema);
          expect(action.examples.length).toBeGreaterThan(0);
        });

        it('has portable schemas (no type arrays, every value typed: the MCP Inspector check)', () => {
          expect(portabilityIssues(action.inputSchema)).toEqual([]);
          expect(portabilityIssues(action.outputSchema)).toEqual([]);
        });

        action.examples.forEach((example, i) => {
          it(`example ${i + 1}: input valid, output valid${action.nondeterministic ? '' : ' and exact'}`, async () => {
            const validateInput = ajv.compile(action.inputSchema);
            expect(validateInput(example.input), JSON.stringify(validateInput.errors)).toBe(true);
            const output = await action.run(structuredClone(example.input), ctx);
            // Crosses a worker boundary: must survive structured cloning and JSON.
            expect(JSON.parse(JSON.stringify(output))).toEqual(output);
            const validateOutput = ajv.compile(action.outputSchema);
            expect(validateOutput(output), JSON.stringify(validateOutput.errors)).toBe(true);
            expect(validateOutput(example.output), `declared example output: ${JSON.stringify(validateOutput.errors)}`).toBe(true);
            if (!action.nondeterministic) expect(output).toEqual(example.output);
          });
        });
      });
    }
  });
}
