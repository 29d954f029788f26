import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeModule, testContext } from '../testing';
import { ActionInputError } from '../types';
import def, { MAX_INPUT_BYTES } from './index';

describeModule(def);

const ctx = testContext();
const action = (name: string) => {
  const a = def.actions.find((x) => x.name === name);
  if (!a) throw new Error(`no action ${name}`);
  return async (input: Record<string, unknown>): Promise<any> => a.run(input, ctx);
};

/** Decodes an action's output image and checks it against the reported fields. */
async function decoded(out: { image: string; format: string; width: number; height: number; bytes: number }) {
  const buf = Buffer.from(out.image, 'base64');
  expect(buf.length).toBe(out.bytes);
  const meta = await sharp(buf).metadata();
  expect(meta.width).toBe(out.width);
  expect(meta.height).toBe(out.height);
  expect(meta.format === 'heif' ? 'avif' : meta.format).toBe(out.format);
  return meta;
}

let photo: string; // 120×80 RGBA PNG with a gradient
beforeAll(async () => {
  const w = 120;
  const h = 80;
  const raw = Buffer.alloc(w * h * 4);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      raw[i] = (x * 2) & 255;
      raw[i + 1] = (y * 3) & 255;
      raw[i + 2] = 128;
      raw[i + 3] = x < 10 ? 0 : 255;
    }
  photo = (
    await sharp(raw, { raw: { width: w, height: h, channels: 4 } })
      .png()
      .toBuffer()
  ).toString('base64');
});

describe('image actions', () => {
  it('every nondeterministic example output decodes to what it reports', async () => {
    for (const a of def.actions.filter((x) => x.nondeterministic)) {
      for (const ex of a.examples) {
        const out = (await a.run(structuredClone(ex.input), ctx)) as any;
        await decoded(out);
        const declared = ex.output as any;
        expect({ format: out.format, width: out.width, height: out.height }).toEqual({
          format: declared.format,
          width: declared.width,
          height: declared.height,
        });
      }
    }
  });

  it('metadata of an RGBA PNG and a data URL', async () => {
    const m = await action('metadata')({ image: `data:image/png;base64,${photo}` });
    expect(m).toMatchObject({ format: 'png', width: 120, height: 80, channels: 4, has_alpha: true });
  });

  it('resize keeps the aspect ratio, cover crops, contain letterboxes', async () => {
    await decoded(await action('resize')({ image: photo, width: 60 })).then((m) => expect(m.height).toBe(40));
    const cover = await action('resize')({ image: photo, width: 50, height: 50, fit: 'cover' });
    expect([cover.width, cover.height]).toEqual([50, 50]);
    const contain = await action('resize')({ image: photo, width: 50, height: 50, fit: 'contain', background: '#ff0000', format: 'jpeg' });
    expect(contain).toMatchObject({ width: 50, height: 50, format: 'jpeg', mime_type: 'image/jpeg' });
    const small = await action('resize')({ image: photo, width: 1000, without_enlargement: true });
    expect(small.width).toBe(120);
    await expect(action('resize')({ image: photo })).rejects.toBeInstanceOf(ActionInputError);
  });

  it('converts to every output format', async () => {
    for (const format of ['png', 'jpeg', 'webp', 'avif', 'gif', 'tiff']) {
      const out = await action('convert')({ image: photo, format, quality: 60 });
      await decoded(out);
    }
  });

  it('rotate by 90 swaps sides; by 45 widens the canvas', async () => {
    expect(await action('rotate')({ image: photo, angle: 90 })).toMatchObject({ width: 80, height: 120 });
    const r45 = await action('rotate')({ image: photo, angle: 45, background: '#ffffff' });
    expect(r45.width).toBeGreaterThan(120);
    expect(await action('rotate')({ image: photo })).toMatchObject({ width: 120, height: 80 });
  });

  it('flip mirrors the pixels', async () => {
    const out = await action('flip')({ image: photo, direction: 'horizontal' });
    const { data } = await sharp(Buffer.from(out.image, 'base64')).raw().toBuffer({ resolveWithObject: true });
    expect(data[3]).toBe(255); // the transparent band moved to the right
    expect(data[(120 - 1) * 4 + 3]).toBe(0);
  });

  it('thumbnail fits in the square or crops to it', async () => {
    expect(await action('thumbnail')({ image: photo, size: 32 })).toMatchObject({ width: 32, height: 21, format: 'webp' });
    expect(await action('thumbnail')({ image: photo, size: 32, square: true })).toMatchObject({ width: 32, height: 32 });
  });

  it('crop checks bounds', async () => {
    expect(await action('crop')({ image: photo, left: 10, top: 10, width: 20, height: 30 })).toMatchObject({ width: 20, height: 30 });
    await expect(action('crop')({ image: photo, left: 100, top: 0, width: 30, height: 10 })).rejects.toThrow(/does not fit/);
  });

  it('adjust applies filters', async () => {
    const out = await action('adjust')({
      image: photo,
      grayscale: true,
      blur: 1,
      brightness: 1.2,
      normalize: true,
      sharpen: true,
      negate: true,
      saturation: 0.5,
    });
    await decoded(out);
  });

  it('refuses non-images, bad base64, oversize input and pixel bombs', async () => {
    await expect(action('metadata')({ image: Buffer.from('hello world, not an image').toString('base64') })).rejects.toBeInstanceOf(
      ActionInputError,
    );
    await expect(action('convert')({ image: 'not*base64!', format: 'png' })).rejects.toBeInstanceOf(ActionInputError);
    await expect(action('metadata')({ image: 'data:image/png,rawtext' })).rejects.toBeInstanceOf(ActionInputError);
    const big = Buffer.alloc(MAX_INPUT_BYTES + 1).toString('base64');
    await expect(action('metadata')({ image: big })).rejects.toThrow(/larger than 5 MB/);
    // A tiny PNG that declares 10000×10000 pixels: refused by limitInputPixels before decoding.
    const bomb = await sharp({ create: { width: 10_000, height: 10_000, channels: 3, background: '#000000' } })
      .png({ compressionLevel: 9 })
      .toBuffer();
    expect(bomb.length).toBeLessThan(MAX_INPUT_BYTES);
    await expect(action('resize')({ image: bomb.toString('base64'), width: 10 })).rejects.toThrow(/pixel limit/);
  });
});
