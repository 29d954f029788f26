import { describe, expect, it } from 'vitest';
import { describeModule, testContext } from '../testing';
import { ActionInputError } from '../types';
import def from './index';

describeModule(def);

const run = (name: string, input: Record<string, unknown>) => def.actions.find((a) => a.name === name)!.run(input, testContext()) as any;

describe('template edge cases', () => {
  it('escapes by default and not when disabled; triple mustache is raw', () => {
    const view = { x: '<b>"&"</b>' };
    expect(run('render', { template: '{{x}}', view }).output).toBe('&lt;b&gt;&quot;&amp;&quot;&lt;&#x2F;b&gt;');
    expect(run('render', { template: '{{x}}', view, escape_html: false }).output).toBe('<b>"&"</b>');
    expect(run('render', { template: '{{{x}}}', view }).output).toBe('<b>"&"</b>');
  });

  it('rejects a broken template or partial as bad input', () => {
    expect(() => run('render', { template: '{{#a}}', view: {} })).toThrow(ActionInputError);
    expect(() => run('render', { template: '{{> p}}', view: {}, partials: { p: '{{/x}}' } })).toThrow(/partial "p"/);
  });

  it('cannot reach the prototype chain', () => {
    expect(
      run('render', {
        template: '[{{constructor}}][{{#constructor}}x{{/constructor}}][{{__proto__}}][{{toString}}]',
        view: { a: { b: 1 } },
      }).output,
    ).toBe('[][][][]');
  });

  it('self-recursive partials fail cleanly', () => {
    expect(() => run('render', { template: '{{> me}}', view: {}, partials: { me: 'x{{> me}}' } })).toThrow(ActionInputError);
  });

  it('custom delimiters and missing values', () => {
    expect(run('render', { template: 'Hi <%name%><%missing%>!', view: { name: 'Ann' }, tags: ['<%', '%>'] }).output).toBe('Hi Ann!');
    expect(run('variables', { template: '<%a%>', tags: ['<%', '%>'] }).top_level).toEqual(['a']);
  });
});
