import { describe, expect, it } from 'vitest';
import { describeModule, testContext } from '../testing';
import { ActionInputError } from '../types';
import def from './index';

describeModule(def);

const run = (name: string, input: Record<string, unknown>) => def.actions.find((a) => a.name === name)!.run(input, testContext()) as any;

describe('yaml/xml edge cases', () => {
  it('yaml_to_json: syntax errors carry a line, multi-document needs all_documents, empty is null', () => {
    expect(() => run('yaml_to_json', { yaml: 'a: [1, 2\nb: 3' })).toThrow(/invalid YAML: .*line \d+/);
    expect(() => run('yaml_to_json', { yaml: 'a: 1\n---\nb: 2' })).toThrow(/all_documents/);
    expect(run('yaml_to_json', { yaml: '' })).toEqual({ data: null });
  });

  it('yaml_to_json bounds alias expansion (billion laughs)', () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++)
      lines.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(',')}]`,
      );
    expect(() => run('yaml_to_json', { yaml: lines.join('\n') })).toThrow(ActionInputError);
  });

  it('yaml round trip with non-finite numbers becomes null', () => {
    expect(run('yaml_to_json', { yaml: 'x: .inf\ny: 1' })).toEqual({ data: { x: null, y: 1 } });
    const yaml = run('json_to_yaml', { data: { b: 1, a: { z: [1, { c: 'd' }] } }, sort_keys: true }).yaml;
    expect(yaml.startsWith('a:')).toBe(true);
    expect(run('yaml_to_json', { yaml }).data).toEqual({ a: { z: [1, { c: 'd' }] }, b: 1 });
  });

  it('xml_to_json rejects malformed XML with a position and entity bombs', () => {
    expect(() => run('xml_to_json', { xml: '<a><b></a>' })).toThrow(/invalid XML: .*line 1/);
    const bomb =
      '<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]><l>&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;</l>';
    let size = 0;
    try {
      size = JSON.stringify(run('xml_to_json', { xml: bomb })).length;
    } catch (e) {
      expect(e).toBeInstanceOf(ActionInputError);
    }
    expect(size).toBeLessThan(200_000);
  });

  it('json_to_xml wraps arrays, rejects invalid names and round-trips', () => {
    expect(run('json_to_xml', { data: [1, 2], indent: 0, declaration: false }).xml).toBe('<root><item>1</item><item>2</item></root>');
    expect(() => run('json_to_xml', { data: { 'bad name': 1 } })).toThrow(ActionInputError);
    const xml = run('json_to_xml', { data: { note: { '@_id': 7, to: 'Ann', body: '<hi> & bye' } } }).xml;
    expect(run('xml_to_json', { xml }).data).toEqual({ note: { '@_id': 7, to: 'Ann', body: '<hi> & bye' } });
  });

  it('validate_yaml reports unresolved aliases', () => {
    const out = run('validate_yaml', { yaml: 'a: *missing' });
    expect(out.valid).toBe(false);
    expect(out.errors[0].line).toBe(1);
  });
});
