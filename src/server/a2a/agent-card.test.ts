import { describe, expect, it } from 'vitest';
import { BUILTIN_MODULES } from '../../modules/registry';
import { firstSentence } from './agent-card';

describe('firstSentence (the agent card skill examples)', () => {
  it('ends at the first full stop outside parentheses, quotes and abbreviations', () => {
    expect(firstSentence('Turns text into a URL slug. Lowercases it.')).toBe('Turns text into a URL slug');
    expect(firstSentence('Turns text into a URL slug.')).toBe('Turns text into a URL slug');
    expect(firstSentence('No full stop at all')).toBe('No full stop at all');
    expect(firstSentence('Detects the language, returning the ISO 639-3 code (e.g. "eng"). Short texts are unreliable.')).toBe(
      'Detects the language, returning the ISO 639-3 code (e.g. "eng")',
    );
    expect(firstSentence('Solves A·x = b, e.g. 2x + y = 3 and x + 3y = 5. Returns x.')).toBe(
      'Solves A·x = b, e.g. 2x + y = 3 and x + 3y = 5',
    );
    expect(firstSentence('Keys, salts, nonces, i.e. secrets, etc. are returned. Then more.')).toBe(
      'Keys, salts, nonces, i.e. secrets, etc. are returned',
    );
    expect(firstSentence('Counts words (i.e. runs of letters. Digits too). Fast.')).toBe('Counts words (i.e. runs of letters. Digits too)');
    expect(firstSentence('Evaluates "a. b" and {"x. y": 1}. Then stops.')).toBe('Evaluates "a. b" and {"x. y": 1}');
    expect(firstSentence('Version 1.5 and 0.001 USD. Next.')).toBe('Version 1.5 and 0.001 USD');
  });

  it('never leaves an example of a built-in action cut inside parentheses or after an abbreviation', () => {
    const examples = BUILTIN_MODULES.flatMap((m) =>
      m.actions.map((a) => ({ id: `${m.name}.${a.name}`, example: firstSentence(a.description), description: a.description })),
    );
    expect(examples.length).toBeGreaterThan(50);
    for (const { id, example, description } of examples) {
      expect(example.length, id).toBeGreaterThan(0);
      expect(example, id).not.toMatch(/\b(e\.?g|i\.?e|etc|vs|cf)$/i);
      expect(example, id).not.toMatch(/[([{]$/);
      // Parentheses balanced (every built-in description balances its own).
      expect(example.split('(').length, id).toBe(example.split(')').length);
      expect(description.startsWith(example), id).toBe(true);
    }
  });
});
