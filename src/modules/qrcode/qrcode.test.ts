import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { describeModule, testContext } from '../testing';
import { ActionInputError } from '../types';
import def from './index';

describeModule(def);

const ctx = testContext();
const action = (name: string) => {
  const a = def.actions.find((x) => x.name === name);
  if (!a) throw new Error(`no action ${name}`);
  return async (input: Record<string, unknown>): Promise<any> => a.run(input, ctx);
};

describe('qrcode edge cases', () => {
  it('PNG output is a real PNG of the requested size', async () => {
    const out = await action('generate')({ text: 'https://example.com/some/path?x=1', size: 300, error_correction: 'H' });
    const meta = await sharp(Buffer.from(out.base64, 'base64')).metadata();
    expect(meta).toMatchObject({ format: 'png', width: 300, height: 300 });
    expect(out.data_url).toBe(`data:image/png;base64,${out.base64}`);
    expect(out.version).toBeGreaterThan(1);
  });

  it('SVG honours colours and size', async () => {
    const out = await action('generate')({ text: 'hello', format: 'svg', dark: '#ff0000', light: '#00000000', size: 128 });
    expect(out.svg).toContain('stroke="#ff0000"');
    expect(out.svg).toContain('width="128"');
    expect(out.base64).toBeNull();
    expect(Buffer.from(out.data_url.split(',')[1], 'base64').toString()).toBe(out.svg);
  });

  it('too much data is an input error', async () => {
    await expect(action('generate')({ text: 'x'.repeat(3000), error_correction: 'H' })).rejects.toBeInstanceOf(ActionInputError);
    await expect(action('inspect')({ text: 'x'.repeat(4000) })).rejects.toBeInstanceOf(ActionInputError);
  });

  it('inspect picks numeric mode for digits and returns the matrix', async () => {
    const out = await action('inspect')({ text: '0123456789', include_matrix: true, error_correction: 'L' });
    expect(out.segments).toEqual([{ mode: 'Numeric', length: 10 }]);
    expect(out.matrix).toHaveLength(21);
    expect(out.matrix[0]).toMatch(/^1111111[01]{7}1111111$/);
  });

  it('generate_text rounds an odd margin up and can invert', async () => {
    const out = await action('generate_text')({ text: 'HI', margin: 1, error_correction: 'L' });
    expect(out.text.split('\n')[0]).toMatch(/^\s+$/);
    const inv = await action('generate_text')({ text: 'HI', margin: 0, invert: true, error_correction: 'L' });
    expect(inv.text).not.toBe((await action('generate_text')({ text: 'HI', margin: 0, error_correction: 'L' })).text);
  });

  it('wifi payload escaping and open networks', async () => {
    const out = await action('wifi')({ ssid: 'My "Net";1', security: 'nopass', hidden: true });
    expect(out.payload).toBe('WIFI:T:nopass;S:My \\"Net\\"\\;1;H:true;;');
    expect(out.format).toBe('png');
    await expect(action('wifi')({ ssid: 'x' })).rejects.toBeInstanceOf(ActionInputError);
  });
});
