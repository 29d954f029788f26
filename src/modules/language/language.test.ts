import { describe, expect, it } from 'vitest';
import { describeModule, testContext } from '../testing';
import { ActionInputError } from '../types';
import def from './index';

describeModule(def);

const run = (name: string, input: Record<string, unknown>) => def.actions.find((a) => a.name === name)!.run(input, testContext()) as any;

describe('language edge cases', () => {
  it('detects several languages and scripts-only languages', () => {
    expect(run('detect', { text: 'Это предложение написано на русском языке, и оно достаточно длинное.' }).language).toBe('rus');
    expect(run('detect', { text: '这是一个用中文写的句子，用来测试语言检测。' }).language).toBe('cmn');
    expect(run('detect', { text: 'Esta frase está escrita en español y es bastante larga para detectar.' }).iso639_1).toBe('es');
  });

  it('numbers, symbols and empty text are undetermined', () => {
    expect(run('detect', { text: '' }).language).toBe('und');
    expect(run('detect', { text: '1234567890 !!! ??? 42' }).language).toBe('und');
    expect(run('detect_script', { text: '123 !!' })).toEqual({ script: null, mixed: false, letters: 0, scripts: [] });
  });

  it('rejects unknown language codes', () => {
    expect(() => run('is_language', { text: 'hello there friend', language: 'xx' })).toThrow(ActionInputError);
    expect(() => run('detect', { text: 'hello there friend', only: ['zzz'] })).toThrow(ActionInputError);
  });

  it('accepts two- and three-letter codes alike', () => {
    const text = 'Dies ist ein deutscher Satz, der lang genug ist, um erkannt zu werden.';
    expect(run('is_language', { text, language: 'de' }).match).toBe(true);
    expect(run('is_language', { text, language: 'DEU' }).match).toBe(true);
  });

  it('detect_script handles Arabic and combining marks', () => {
    expect(run('detect_script', { text: 'مرحبا بالعالم' }).script).toBe('Arabic');
    expect(run('detect_script', { text: 'e\u0301te\u0301' })).toMatchObject({ script: 'Latin', letters: 3, mixed: false });
  });
});
