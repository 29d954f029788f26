import sharp, { type FitEnum, type Sharp } from 'sharp';
import { ActionInputError, type JsonSchema, type ModuleDefinition } from '../types';

/** Decoded input bytes accepted. */
export const MAX_INPUT_BYTES = 5 * 1024 * 1024;
/** Pixels (width × height) sharp may decode: refuses decompression bombs before decoding. */
export const MAX_INPUT_PIXELS = 25_000_000;
/** Largest output side. */
const MAX_SIDE = 4096;

// Workers are short-lived and memory-bound: no libvips operation cache, one thread per call.
sharp.cache(false);
sharp.concurrency(1);

const OUTPUT_FORMATS = ['png', 'jpeg', 'webp', 'avif', 'gif', 'tiff'] as const;
type OutputFormat = (typeof OUTPUT_FORMATS)[number];

const MIME: Record<string, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  avif: 'image/avif',
  heif: 'image/heif',
  gif: 'image/gif',
  tiff: 'image/tiff',
  svg: 'image/svg+xml',
};

function decode(image: string): Buffer {
  const comma = image.startsWith('data:') ? image.indexOf(',') : -1;
  if (image.startsWith('data:') && (comma < 0 || !image.slice(0, comma).endsWith(';base64'))) {
    throw new ActionInputError('image: a data URL must be base64-encoded ("data:image/png;base64,...").');
  }
  const b64 = (comma >= 0 ? image.slice(comma + 1) : image).replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(b64)) throw new ActionInputError('image is not valid base64.');
  const buf = Buffer.from(b64, b64.includes('-') || b64.includes('_') ? 'base64url' : 'base64');
  if (buf.length === 0) throw new ActionInputError('image is empty.');
  if (buf.length > MAX_INPUT_BYTES) throw new ActionInputError(`image is larger than ${MAX_INPUT_BYTES / 1024 / 1024} MB.`);
  return buf;
}

function open(image: string): Sharp {
  return sharp(decode(image), { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error', animated: false });
}

/** sharp/libvips errors about the input are the caller's problem: report them as input errors. */
async function guard<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ActionInputError) throw err;
    const message = (err as Error).message?.split('\n')[0] ?? 'unknown error';
    throw new ActionInputError(`The image could not be processed: ${message}`);
  }
}

async function sourceFormat(img: Sharp): Promise<OutputFormat> {
  const { format } = await img.metadata();
  if (format === 'jpeg' || format === 'png' || format === 'webp' || format === 'gif' || format === 'tiff') return format;
  if (format === 'heif') return 'avif';
  return 'png';
}

interface EncodeOptions {
  format?: OutputFormat;
  quality?: number;
  lossless?: boolean;
  background?: string;
}

async function encode(img: Sharp, opts: EncodeOptions, fallback: OutputFormat) {
  const format = opts.format ?? fallback;
  let pipeline = img;
  if (format === 'jpeg') pipeline = pipeline.flatten({ background: opts.background ?? '#ffffff' });
  const quality = opts.quality;
  switch (format) {
    case 'jpeg':
      pipeline = pipeline.jpeg({ quality: quality ?? 80, mozjpeg: true });
      break;
    case 'webp':
      pipeline = pipeline.webp({ quality: quality ?? 80, lossless: opts.lossless ?? false });
      break;
    case 'avif':
      pipeline = pipeline.avif({ quality: quality ?? 50, lossless: opts.lossless ?? false, effort: 2 });
      break;
    case 'gif':
      pipeline = pipeline.gif();
      break;
    case 'tiff':
      pipeline = pipeline.tiff({ quality: quality ?? 80 });
      break;
    default:
      pipeline = pipeline.png({ compressionLevel: 9 });
  }
  const { data, info } = await pipeline.toBuffer({ resolveWithObject: true });
  return { image: data.toString('base64'), format, mime_type: MIME[format]!, width: info.width, height: info.height, bytes: data.length };
}

// ---------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------

const imageField = {
  type: 'string',
  minLength: 8,
  maxLength: 7_000_100,
  description: `The image as base64 (or a "data:image/...;base64," URL): PNG, JPEG, WebP, AVIF, GIF, TIFF or SVG; at most 5 MB and ${MAX_INPUT_PIXELS / 1_000_000} megapixels.`,
};
const formatField = { type: 'string', enum: OUTPUT_FORMATS, description: 'Output format (default: the input format).' };
const qualityField = { type: 'integer', minimum: 1, maximum: 100, description: 'Quality for jpeg/webp/avif/tiff (defaults 80, avif 50).' };
const colorField = (description: string) => ({ type: 'string', maxLength: 32, description });

const imageOutput: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['image', 'format', 'mime_type', 'width', 'height', 'bytes'],
  properties: {
    image: { type: 'string', description: 'The resulting image, base64.' },
    format: { type: 'string', enum: OUTPUT_FORMATS },
    mime_type: { type: 'string' },
    width: { type: 'integer' },
    height: { type: 'integer' },
    bytes: { type: 'integer', description: 'Size of the encoded image in bytes.' },
  },
};

const encodeProps = { format: formatField, quality: qualityField };

/** A tiny 4×2 PNG (red, green, blue, yellow / white, black, grey, cyan) used in the examples. */
const SAMPLE_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAQAAAACCAIAAADwyuo0AAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAGUlEQVQImWP4z8DAAMb//0MJhoaGBob//wGJGAt3Y0hjbQAAAABJRU5ErkJggg==';

const image: ModuleDefinition = {
  name: 'image',
  version: '1.0.0',
  title: 'Image processing',
  description:
    'Read image metadata and colour statistics, resize, crop, thumbnail, rotate, flip, adjust (grayscale, blur, sharpen…) and convert between PNG, JPEG, WebP, AVIF, GIF and TIFF with sharp (libvips). Images travel as base64 strings (max 5 MB, 25 megapixels).',
  category: 'media',
  tags: ['image', 'resize', 'thumbnail', 'convert', 'png', 'jpeg', 'webp', 'avif', 'crop', 'rotate', 'metadata', 'sharp'],
  actions: [
    {
      name: 'metadata',
      description:
        "Read an image's format, width, height, channels, alpha, colour space, bit depth, EXIF orientation and size without changing it.",
      inputSchema: { type: 'object', additionalProperties: false, required: ['image'], properties: { image: imageField } },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: [
          'format',
          'mime_type',
          'width',
          'height',
          'channels',
          'has_alpha',
          'space',
          'depth',
          'density',
          'orientation',
          'pages',
          'bytes',
          'is_progressive',
        ],
        properties: {
          format: { type: 'string' },
          mime_type: { type: 'string' },
          width: { type: 'integer' },
          height: { type: 'integer' },
          channels: { type: 'integer' },
          has_alpha: { type: 'boolean' },
          space: { type: 'string', description: 'Colour space, e.g. srgb, b-w, cmyk.' },
          depth: { type: 'string', description: 'Pixel depth, e.g. uchar (8 bit), ushort (16 bit).' },
          density: { anyOf: [{ type: 'number' }, { type: 'null' }], description: 'DPI when recorded.' },
          orientation: { anyOf: [{ type: 'integer' }, { type: 'null' }], description: 'EXIF orientation 1-8 when present.' },
          pages: { type: 'integer', description: 'Frames/pages (animated GIF/WebP, multi-page TIFF).' },
          bytes: { type: 'integer' },
          is_progressive: { type: 'boolean' },
        },
      },
      examples: [
        {
          input: { image: SAMPLE_PNG },
          output: {
            format: 'png',
            mime_type: 'image/png',
            width: 4,
            height: 2,
            channels: 3,
            has_alpha: false,
            space: 'srgb',
            depth: 'uchar',
            density: null,
            orientation: null,
            pages: 1,
            bytes: 103,
            is_progressive: false,
          },
        },
      ],
      run(input: { image: string }) {
        return guard(async () => {
          const buf = decode(input.image);
          const m = await sharp(buf, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
          if (!m.width || !m.height || !m.format) throw new ActionInputError('The image has no readable dimensions.');
          return {
            format: m.format,
            mime_type: MIME[m.format] ?? `image/${m.format}`,
            width: m.width,
            height: m.height,
            channels: m.channels ?? 0,
            has_alpha: m.hasAlpha ?? false,
            space: m.space ?? 'unknown',
            depth: m.depth ?? 'unknown',
            density: m.density ?? null,
            orientation: m.orientation ?? null,
            pages: m.pages ?? 1,
            bytes: buf.length,
            is_progressive: m.isProgressive ?? false,
          };
        });
      },
    },
    {
      name: 'resize',
      description:
        'Resize an image to a width and/or height (one alone keeps the aspect ratio). fit: inside (fit within, default), cover (fill and crop), contain (letterbox with background), fill (stretch), outside.',
      nondeterministic: true,
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['image'],
        anyOf: [{ required: ['width'] }, { required: ['height'] }],
        properties: {
          image: imageField,
          width: { type: 'integer', minimum: 1, maximum: MAX_SIDE, description: 'Target width in pixels.' },
          height: { type: 'integer', minimum: 1, maximum: MAX_SIDE, description: 'Target height in pixels.' },
          fit: {
            type: 'string',
            enum: ['inside', 'cover', 'contain', 'fill', 'outside'],
            default: 'inside',
            description: 'How to fit both dimensions.',
          },
          position: {
            type: 'string',
            enum: ['centre', 'top', 'right', 'bottom', 'left', 'entropy', 'attention'],
            default: 'centre',
            description: 'Which part to keep for cover; entropy/attention pick the most interesting region.',
          },
          without_enlargement: { type: 'boolean', default: false, description: 'Never make the image larger than it is.' },
          background: colorField('Letterbox colour for contain (and for jpeg transparency), e.g. "#ffffff" or "rgba(0,0,0,0)".'),
          ...encodeProps,
        },
      },
      outputSchema: imageOutput,
      examples: [
        {
          input: { image: SAMPLE_PNG, width: 8 },
          output: {
            image:
              'iVBORw0KGgoAAAANSUhEUgAAAAgAAAAECAIAAAA8r+mnAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAU0lEQVQI12P4z8AARI0TwFTbVCDVkt39HyIKRA39CKqhoB8s0dDxv6GhpsWEoYGBJyTGweFAypw1Df8bGP6DQUVFBQMDg4WGRkNDg8eJEwz//wMA7UEr2WBqOlgAAAAASUVORK5CYII=',
            format: 'png',
            mime_type: 'image/png',
            width: 8,
            height: 4,
            bytes: 161,
          },
        },
      ],
      run(
        input: EncodeOptions & {
          image: string;
          width?: number;
          height?: number;
          fit?: keyof FitEnum;
          position?: string;
          without_enlargement?: boolean;
        },
      ) {
        if (!input.width && !input.height) throw new ActionInputError('Give a width, a height, or both.');
        return guard(async () => {
          const img = open(input.image);
          const fallback = await sourceFormat(img);
          img.resize({
            width: input.width,
            height: input.height,
            fit: input.fit ?? 'inside',
            position: input.position ?? 'centre',
            withoutEnlargement: input.without_enlargement ?? false,
            background: input.background ?? { r: 0, g: 0, b: 0, alpha: 0 },
          });
          return encode(img, input, fallback);
        });
      },
    },
    {
      name: 'convert',
      description:
        'Convert an image to another format (png, jpeg, webp, avif, gif, tiff) with a quality setting; transparency becomes the background colour for jpeg.',
      nondeterministic: true,
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['image', 'format'],
        properties: {
          image: imageField,
          format: { ...formatField, description: 'Target format.' },
          quality: qualityField,
          lossless: { type: 'boolean', default: false, description: 'Lossless webp/avif.' },
          background: colorField('Colour replacing transparency in jpeg output (default white).'),
        },
      },
      outputSchema: imageOutput,
      examples: [
        {
          input: { image: SAMPLE_PNG, format: 'webp', lossless: true },
          output: {
            image: 'UklGRjwAAABXRUJQVlA4TC8AAAAvA0AAAD9AkG3To598GgKCouuWI5C08dGffPMfSAJjhuQdhAJo7KUSQQBF9D8aAQA=',
            format: 'webp',
            mime_type: 'image/webp',
            width: 4,
            height: 2,
            bytes: 68,
          },
        },
      ],
      run(input: EncodeOptions & { image: string; format: OutputFormat }) {
        return guard(async () => encode(open(input.image), input, input.format));
      },
    },
    {
      name: 'rotate',
      description:
        'Rotate an image by an angle in degrees (clockwise; multiples of 90 are lossless in size, others widen the canvas filled with the background), or straighten it from its EXIF orientation.',
      nondeterministic: true,
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['image'],
        properties: {
          image: imageField,
          angle: { type: 'number', minimum: -360, maximum: 360, description: 'Degrees clockwise. Omit to auto-orient from EXIF.' },
          background: colorField('Fill for the corners of non-right-angle rotations (default transparent/black).'),
          ...encodeProps,
        },
      },
      outputSchema: imageOutput,
      examples: [
        {
          input: { image: SAMPLE_PNG, angle: 90 },
          output: {
            image:
              'iVBORw0KGgoAAAANSUhEUgAAAAIAAAAECAIAAAArjXluAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAFklEQVQI12P4DwQMEACkGxoawDRYFACdkAt3FhqTEAAAAABJRU5ErkJggg==',
            format: 'png',
            mime_type: 'image/png',
            width: 2,
            height: 4,
            bytes: 100,
          },
        },
      ],
      run(input: EncodeOptions & { image: string; angle?: number }) {
        return guard(async () => {
          const img = open(input.image);
          const fallback = await sourceFormat(img);
          if (input.angle === undefined) img.autoOrient();
          else img.rotate(input.angle, { background: input.background ?? { r: 0, g: 0, b: 0, alpha: 0 } });
          return encode(img, input, fallback);
        });
      },
    },
    {
      name: 'flip',
      description: 'Mirror an image horizontally (left-right), vertically (upside down) or both.',
      nondeterministic: true,
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['image', 'direction'],
        properties: {
          image: imageField,
          direction: {
            type: 'string',
            enum: ['horizontal', 'vertical', 'both'],
            description: 'horizontal mirrors left-right; vertical turns upside down.',
          },
          ...encodeProps,
        },
      },
      outputSchema: imageOutput,
      examples: [
        {
          input: { image: SAMPLE_PNG, direction: 'horizontal' },
          output: {
            image:
              'iVBORw0KGgoAAAANSUhEUgAAAAQAAAACCAIAAADwyuo0AAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAGUlEQVQI12P4/5+BgeE/GIIY/xsaGsD0fwCNmAt3ztUe3AAAAABJRU5ErkJggg==',
            format: 'png',
            mime_type: 'image/png',
            width: 4,
            height: 2,
            bytes: 103,
          },
        },
      ],
      run(input: EncodeOptions & { image: string; direction: 'horizontal' | 'vertical' | 'both' }) {
        return guard(async () => {
          const img = open(input.image);
          const fallback = await sourceFormat(img);
          if (input.direction !== 'horizontal') img.flip();
          if (input.direction !== 'vertical') img.flop();
          return encode(img, input, fallback);
        });
      },
    },
    {
      name: 'thumbnail',
      description:
        'Make a small preview: fits the image within a square of `size` pixels (or crops to exactly that square), auto-oriented, metadata stripped, as WebP by default.',
      nondeterministic: true,
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['image'],
        properties: {
          image: imageField,
          size: { type: 'integer', minimum: 8, maximum: 1024, default: 128, description: 'Longest side in pixels.' },
          square: { type: 'boolean', default: false, description: 'Crop to exactly size×size (centred on the most interesting region).' },
          format: { ...formatField, default: 'webp', description: 'Output format (default webp).' },
          quality: qualityField,
        },
      },
      outputSchema: imageOutput,
      examples: [
        {
          input: { image: SAMPLE_PNG, size: 16, format: 'png' },
          output: {
            image:
              'iVBORw0KGgoAAAANSUhEUgAAABAAAAAICAIAAAB/FOjAAAAACXBIWXMAAAPoAAAD6AG1e1JrAAABTklEQVQY02P4z8AAQacNGRonMJi+AHOe2DK0TWVQfQrkGEg9bMnuvnZY//9/hv9w1SANBgyNExlMX4E5z+wY2qYxqD4DaZB82JLVff2wHoYGK4aGfgaTu2DOdTBHA8QxUbrbUNB/+qgVTIOW+X9N8/8mJqfCVeq6eIx2ArUyMKzRZ8irYjI6JCX11MHmYmnT7BVnYk//N7nxX53hf0PH/4bO/w0NpxoTa1pMDFp4GRoYGPIUeEJiNB1mOTgcCEo+kDJnTcn1iQ3/G1r+VzP8v3rj/7Vb/0+fPrl6XlVtjK6/PIMJA4uBgJqVrb9vUVrarOTO9cHb9jg8PGry/7TB//NAZ0HBiRMnKioqtLW1GRgYuFlZLTQ0MsPDGxoa8hcv9jhxQvbFCwaIJxAaLl0rL2vSktMHauBlYLRTUiyK8uvsLC9eM9/l3BnBV18gqgFkc7N39cbKZgAAAABJRU5ErkJggg==',
            format: 'png',
            mime_type: 'image/png',
            width: 16,
            height: 8,
            bytes: 412,
          },
        },
      ],
      run(input: { image: string; size?: number; square?: boolean; format?: OutputFormat; quality?: number }) {
        const size = input.size ?? 128;
        return guard(async () => {
          const img = open(input.image).autoOrient();
          img.resize({ width: size, height: size, fit: input.square ? 'cover' : 'inside', position: 'attention' });
          return encode(img, { format: input.format ?? 'webp', quality: input.quality }, 'webp');
        });
      },
    },
    {
      name: 'crop',
      description: 'Cut out a rectangle of an image given its left/top corner and width/height in pixels (must lie inside the image).',
      nondeterministic: true,
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['image', 'left', 'top', 'width', 'height'],
        properties: {
          image: imageField,
          left: { type: 'integer', minimum: 0, maximum: 100_000, description: 'X of the top-left corner.' },
          top: { type: 'integer', minimum: 0, maximum: 100_000, description: 'Y of the top-left corner.' },
          width: { type: 'integer', minimum: 1, maximum: 100_000, description: 'Width of the rectangle.' },
          height: { type: 'integer', minimum: 1, maximum: 100_000, description: 'Height of the rectangle.' },
          ...encodeProps,
        },
      },
      outputSchema: imageOutput,
      examples: [
        {
          input: { image: SAMPLE_PNG, left: 1, top: 0, width: 2, height: 2 },
          output: {
            image:
              'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAEklEQVQI12Ng+M/AAMYMDQ0NABb6A3+bX5GTAAAAAElFTkSuQmCC',
            format: 'png',
            mime_type: 'image/png',
            width: 2,
            height: 2,
            bytes: 96,
          },
        },
      ],
      run(input: EncodeOptions & { image: string; left: number; top: number; width: number; height: number }) {
        return guard(async () => {
          const img = open(input.image);
          const meta = await img.metadata();
          const w = meta.autoOrient?.width ?? meta.width ?? 0;
          const h = meta.autoOrient?.height ?? meta.height ?? 0;
          if (input.left + input.width > w || input.top + input.height > h) {
            throw new ActionInputError(
              `The rectangle ${input.left},${input.top} ${input.width}×${input.height} does not fit in the ${w}×${h} image.`,
            );
          }
          img.extract({ left: input.left, top: input.top, width: input.width, height: input.height });
          return encode(img, input, await sourceFormat(img));
        });
      },
    },
    {
      name: 'adjust',
      description:
        'Apply simple filters to an image: grayscale, negate, blur, sharpen, normalize (auto-contrast), brightness and saturation.',
      nondeterministic: true,
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['image'],
        properties: {
          image: imageField,
          grayscale: { type: 'boolean', default: false, description: 'Convert to shades of grey.' },
          negate: { type: 'boolean', default: false, description: 'Invert colours.' },
          blur: { type: 'number', minimum: 0.3, maximum: 100, description: 'Gaussian blur sigma.' },
          sharpen: { type: 'boolean', default: false, description: 'Sharpen edges.' },
          normalize: { type: 'boolean', default: false, description: 'Stretch contrast to the full range.' },
          brightness: { type: 'number', minimum: 0.1, maximum: 5, description: 'Brightness multiplier (1 = unchanged).' },
          saturation: {
            type: 'number',
            exclusiveMinimum: 0,
            maximum: 5,
            description: 'Saturation multiplier (near 0 = grey, 1 = unchanged).',
          },
          ...encodeProps,
        },
      },
      outputSchema: imageOutput,
      examples: [
        {
          input: { image: SAMPLE_PNG, grayscale: true },
          output: {
            image:
              'iVBORw0KGgoAAAANSUhEUgAAAAQAAAACCAIAAADwyuo0AAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAI0lEQVQI12Oor6+/c+eOj4/P9+/fGf7//8/AwNDQ0PDs2TMAwywPCl1sDgoAAAAASUVORK5CYII=',
            format: 'png',
            mime_type: 'image/png',
            width: 4,
            height: 2,
            bytes: 113,
          },
        },
      ],
      run(
        input: EncodeOptions & {
          image: string;
          grayscale?: boolean;
          negate?: boolean;
          blur?: number;
          sharpen?: boolean;
          normalize?: boolean;
          brightness?: number;
          saturation?: number;
        },
      ) {
        return guard(async () => {
          const img = open(input.image);
          const fallback = await sourceFormat(img);
          if (input.brightness !== undefined || input.saturation !== undefined) {
            img.modulate({
              ...(input.brightness !== undefined && { brightness: input.brightness }),
              ...(input.saturation !== undefined && { saturation: input.saturation }),
            });
          }
          if (input.normalize) img.normalize();
          if (input.blur !== undefined) img.blur(input.blur);
          if (input.sharpen) img.sharpen();
          if (input.negate) img.negate({ alpha: false });
          if (input.grayscale) img.grayscale();
          return encode(img, input, fallback);
        });
      },
    },
    {
      name: 'stats',
      description:
        'Colour statistics of an image: per-channel min/max/mean/standard deviation, the dominant colour (hex), whether it is fully opaque, entropy and sharpness.',
      inputSchema: { type: 'object', additionalProperties: false, required: ['image'], properties: { image: imageField } },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['channels', 'dominant', 'is_opaque', 'entropy', 'sharpness'],
        properties: {
          channels: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['min', 'max', 'mean', 'stdev'],
              properties: { min: { type: 'number' }, max: { type: 'number' }, mean: { type: 'number' }, stdev: { type: 'number' } },
            },
          },
          dominant: { type: 'string', pattern: '^#[0-9a-f]{6}$', description: 'Dominant colour (sharp histogram bins).' },
          is_opaque: { type: 'boolean' },
          entropy: { type: 'number' },
          sharpness: { type: 'number' },
        },
      },
      examples: [
        {
          input: { image: SAMPLE_PNG },
          output: {
            channels: [
              { min: 0, max: 255, mean: 111.625, stdev: 126.3656 },
              { min: 0, max: 255, mean: 143.5, stdev: 126.3476 },
              { min: 0, max: 255, mean: 111.625, stdev: 126.3656 },
            ],
            dominant: '#080808',
            is_opaque: true,
            entropy: 3,
            sharpness: 40.9613,
          },
        },
      ],
      run(input: { image: string }) {
        return guard(async () => {
          const s = await open(input.image).stats();
          const r4 = (x: number) => Math.round(x * 10_000) / 10_000;
          const hex = (n: number) => n.toString(16).padStart(2, '0');
          return {
            channels: s.channels.map((c) => ({ min: c.min, max: c.max, mean: r4(c.mean), stdev: r4(c.stdev) })),
            dominant: `#${hex(s.dominant.r)}${hex(s.dominant.g)}${hex(s.dominant.b)}`,
            is_opaque: s.isOpaque,
            entropy: r4(s.entropy),
            sharpness: r4(s.sharpness),
          };
        });
      },
    },
  ],
};

export default image;
