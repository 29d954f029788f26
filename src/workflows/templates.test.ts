import { describe, expect, it } from 'vitest';
import { ancestorsOf, topologicalOrder } from './definition';
import { parseReference, referencesIn, resolveTemplate, stepsInExpression } from './templates';

const context = {
  input: { n: 21, name: 'Ann', list: [1, 'two'], nested: { ok: true } },
  steps: { a: { output: { result: 42, items: [{ id: 'x' }], empty: null } } },
};

describe('workflow templates', () => {
  it('a whole-value reference keeps its JSON type', () => {
    expect(
      resolveTemplate({ n: '{{input.n}}', list: '{{ input.list }}', obj: '{{input.nested}}', out: '{{steps.a.output}}' }, context),
    ).toEqual({
      n: 21,
      list: [1, 'two'],
      obj: { ok: true },
      out: context.steps.a.output,
    });
  });

  it('interpolates references inside text: strings as they are, other values as JSON, missing as nothing', () => {
    expect(resolveTemplate('hi {{input.name}}, n={{input.n}}, {{input.nested}}, [{{input.missing}}]', context)).toBe(
      'hi Ann, n=21, {"ok":true}, []',
    );
  });

  it('reads array items by index and leaves out keys whose reference names nothing', () => {
    expect(
      resolveTemplate(
        {
          id: '{{steps.a.output.items.0.id}}',
          gone: '{{steps.a.output.nope}}',
          nul: '{{steps.a.output.empty}}',
          arr: ['{{input.missing}}'],
        },
        context,
      ),
    ).toEqual({
      id: 'x',
      nul: null,
      arr: [null],
    });
  });

  it('reads only own data: inherited names such as constructor or __proto__ name nothing', () => {
    const ctx = { input: { a: { b: 1 } }, steps: { a: { output: { x: 1 } } } };
    expect(
      resolveTemplate(
        {
          c: '{{input.constructor}}',
          p: '{{input.__proto__}}',
          t: '{{input.a.toString}}',
          s: '{{steps.constructor.output}}',
          o: '{{steps.a.output.hasOwnProperty}}',
        },
        ctx,
      ),
    ).toEqual({});
    expect(resolveTemplate('[{{input.constructor}}][{{steps.toString.output}}]', ctx)).toBe('[][]');
    expect(resolveTemplate({ b: '{{input.a.b}}' }, ctx)).toEqual({ b: 1 });
  });

  it('parses only input.* and steps.<id>.output.* references', () => {
    expect(parseReference('input')).toEqual({ root: 'input', path: [] });
    expect(parseReference('steps.a.output.x.y')).toEqual({ root: 'step', step: 'a', path: ['x', 'y'] });
    for (const bad of ['env.SECRET', 'steps.a', 'steps.a.input.x', 'input..x', '']) expect(typeof parseReference(bad), bad).toBe('string');
    expect(referencesIn({ a: ['{{input.x}} {{steps.b.output}}'], b: 3 })).toEqual(['input.x', 'steps.b.output']);
  });

  it('finds the steps a JSONata expression names, from its syntax tree', () => {
    const named = (expression: string) => stepsInExpression(expression);
    expect(named('steps.a.output.x + steps.b_2.output.y')).toEqual({ ids: ['a', 'b_2'], unnamed: false });
    for (const [expression, ids] of [
      ['$lookup(steps, "a").output.x', ['a']],
      ['steps ~> $lookup("a")', ['a']],
      ['steps . a . output', ['a']],
      ['steps.`a`.output', ['a']],
      ['steps."a".output', ['a']],
      ['$$.steps.a.output', ['a']],
      ['$.steps.a.output', ['a']],
      ['steps.a.output.items[id = steps.b.output.id]', ['a']],
      ['{"x": steps.a.output.items[0], "y": [steps.b.output]}', ['a', 'b']],
      ['$map(input.list, function($v) { $v * steps.c.output.n })', ['c']],
      ['(steps.a.output.ok ? steps.b.output : $lookup(steps, "c")) ~> $string()', ['a', 'b', 'c']],
      ['input.items.(steps.a.output)', []],
      ['input.items.(steps.a.output.x + $$.steps.b.output.y)', ['b']],
      ['input@$i.steps.c.output', ['c']],
      ['input.steps.a', []],
      ['input.items[steps > 1]', []],
      ['"steps.a" = input.name', []],
      ['$steps.a', []],
    ] as const) {
      expect(named(expression), expression).toEqual({ ids, unnamed: false });
    }
    for (const expression of [
      'steps',
      '$keys(steps)',
      'steps.*.output',
      'steps.**.x',
      'steps[0].a',
      'steps{"k": 1}',
      'steps.(a).output',
      'steps.$v.output',
      '$lookup(steps, input.which)',
      '$lookup($$.steps, "a" & "b")',
      'steps ~> $lookup(input.which)',
      '($s := steps; $s.a)',
      '$each(steps, function($v, $k) { $k })',
      '$$.steps',
      '(steps).a',
      'steps@$s.a',
      'steps.a@$x.b',
      'steps^(a).x',
    ]) {
      expect(named(expression).unnamed, expression).toBe(true);
    }
  });
});

describe('workflow graph', () => {
  it('orders steps after their dependencies and names a cycle', () => {
    expect(
      topologicalOrder([{ id: 'd', depends_on: ['b', 'c'] }, { id: 'b', depends_on: ['a'] }, { id: 'c', depends_on: ['a'] }, { id: 'a' }])
        .order,
    ).toEqual(['a', 'b', 'c', 'd']);
    expect(
      topologicalOrder([
        { id: 'a', depends_on: ['c'] },
        { id: 'b', depends_on: ['a'] },
        { id: 'c', depends_on: ['b'] },
      ]).cycle,
    ).toEqual(['a', 'c', 'b', 'a']);
  });

  it('ancestors are transitive', () => {
    const a = ancestorsOf([{ id: 'a' }, { id: 'b', depends_on: ['a'] }, { id: 'c', depends_on: ['b'] }, { id: 'd' }]);
    expect([...a.get('c')!].sort()).toEqual(['a', 'b']);
    expect([...a.get('d')!]).toEqual([]);
  });
});
