import QRCode from 'qrcode';
import { ActionInputError, type JsonSchema, type ModuleDefinition } from '../types';

type Level = 'L' | 'M' | 'Q' | 'H';

interface StyleInput {
  error_correction?: Level;
  margin?: number;
  dark?: string;
  light?: string;
  size?: number;
}

const COLOR = '^#(?:[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$';

const styleProperties = {
  error_correction: {
    type: 'string',
    enum: ['L', 'M', 'Q', 'H'],
    default: 'M',
    description: 'Error correction: L ~7%, M ~15%, Q ~25%, H ~30% of the code can be damaged (higher = denser code).',
  },
  margin: {
    type: 'integer',
    minimum: 0,
    maximum: 16,
    default: 4,
    description: 'Quiet zone around the code, in modules (4 is the standard).',
  },
  dark: { type: 'string', pattern: COLOR, default: '#000000', description: 'Colour of the dark modules, "#RRGGBB" or "#RRGGBBAA".' },
  light: { type: 'string', pattern: COLOR, default: '#ffffff', description: 'Background colour ("#ffffff00" for transparent).' },
};

const textField = {
  type: 'string',
  minLength: 1,
  maxLength: 4000,
  description: 'The content to encode: a URL, text, contact or Wi-Fi payload (up to ~2,900 bytes at level L).',
};

const infoProperties = {
  version: { type: 'integer', minimum: 1, maximum: 40, description: 'QR version (1-40): the code has 17 + 4·version modules per side.' },
  modules: { type: 'integer', description: 'Modules (cells) per side, without the margin.' },
  error_correction: { type: 'string' },
};

function create(text: string, level: Level) {
  try {
    return QRCode.create(text, { errorCorrectionLevel: level });
  } catch (err) {
    throw new ActionInputError(`Cannot encode this text: ${(err as Error).message}.`);
  }
}

function renderOptions(input: StyleInput) {
  return {
    errorCorrectionLevel: input.error_correction ?? 'M',
    margin: input.margin ?? 4,
    color: { dark: input.dark ?? '#000000', light: input.light ?? '#ffffff' },
    width: input.size,
  };
}

async function render(text: string, format: 'png' | 'svg', input: StyleInput) {
  const level = input.error_correction ?? 'M';
  const qr = create(text, level);
  const options = renderOptions(input);
  const info = { version: qr.version, modules: qr.modules.size, error_correction: level };
  if (format === 'svg') {
    const svg = await QRCode.toString(text, { ...options, type: 'svg' });
    return {
      format,
      mime_type: 'image/svg+xml',
      ...info,
      svg,
      base64: null,
      data_url: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`,
    };
  }
  const dataUrl = await QRCode.toDataURL(text, { ...options, width: options.width ?? 256, type: 'image/png' });
  return { format, mime_type: 'image/png', ...info, svg: null, base64: dataUrl.slice(dataUrl.indexOf(',') + 1), data_url: dataUrl };
}

const imageOutput: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['format', 'mime_type', 'version', 'modules', 'error_correction', 'svg', 'base64', 'data_url'],
  properties: {
    format: { type: 'string', enum: ['png', 'svg'] },
    mime_type: { type: 'string' },
    ...infoProperties,
    svg: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'The SVG markup (format svg).' },
    base64: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'The PNG file, base64 (format png).' },
    data_url: { type: 'string', description: 'A data: URL usable directly as an <img> src or Markdown image.' },
  },
};

const formatField = {
  type: 'string',
  enum: ['png', 'svg'],
  default: 'png',
  description: 'png (base64 + data URL) or svg (markup + data URL).',
};
const sizeField = {
  type: 'integer',
  minimum: 21,
  maximum: 2048,
  description: 'Image width/height in pixels (default 256 for png; svg scales freely).',
};

/** Escapes a field of a WIFI: payload (\ ; , : " are special). */
const wifiEscape = (s: string) => s.replace(/([\\;,:"])/g, '\\$1');

const qrcode: ModuleDefinition = {
  name: 'qrcode',
  version: '1.0.0',
  title: 'QR codes',
  description:
    'Generate QR codes as PNG (base64 / data URL), SVG or terminal text for URLs, text and Wi-Fi credentials, with error-correction level, size, margin and colours; inspect the resulting QR version and size.',
  category: 'media',
  tags: ['qr', 'qrcode', 'barcode', '2d code', 'png', 'svg', 'wifi', 'image'],
  actions: [
    {
      name: 'generate',
      description:
        'Create a QR code image for a text or URL, as a PNG (base64 and data URL) or SVG; choose error correction, pixel size, margin and colours.',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['text'],
        properties: { text: textField, format: formatField, size: sizeField, ...styleProperties },
      },
      outputSchema: imageOutput,
      examples: [
        {
          input: { text: 'HI', error_correction: 'L', size: 42, margin: 1 },
          output: {
            format: 'png',
            mime_type: 'image/png',
            version: 1,
            modules: 21,
            error_correction: 'L',
            svg: null,
            base64:
              'iVBORw0KGgoAAAANSUhEUgAAACoAAAAqCAYAAADFw8lbAAAAAklEQVR4AewaftIAAAGnSURBVNXB0WrrSBQAwW6h///lXh+IYBB2nGR9H6bKHtjAwSZOvqj8VsVQWVVcVEbFUPmtioNNnNxUvKOyqhgqP1XxjsrlYBMnL6jcVTyjMiqGSsVPqNxV3B1s4uQfqFAZFZ9wsImTD1K5VHzSyQsVP1XxVxU/cbCJkxuV31IZFUOlYqiMipXKbxxswh74EJVLxScdbOLki8p3Ki4qo2KojIqhcqcyKlYqdxVDZVQcbMIeeFBZVQyVS8VKZVS8ojIqViqj4qLyTMXBJk5uKlYVQ+Wi8ozKqLhTeUblUjFURsXl5AWVUTEqLhUrlZVKxTMVf3GwCXtgofJKxVBZVQyVu4qhMipWKhVDZVTcHWzi5KbinYqVyl3Fd1RGxZ3KqLgcbOLki8pvVYyKofKOyqgYKhXvHGzi5KbiHZVnKoaKyk9UqIyKoXJ3sImTF1TuKr6jMipURsVK5Z2KoTIqTj5AZaVSsVIZFSuVipXKqLgcbOLkH1EZFe+orCruDjZx8kLFX1WoDJVRMVRGxV3FKwebOLlR+b9UXqkYKqNCZaUyKi4Hm7AHNvAfLk4HaXtLObQAAAAASUVORK5CYII=',
            data_url:
              'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAACoAAAAqCAYAAADFw8lbAAAAAklEQVR4AewaftIAAAGnSURBVNXB0WrrSBQAwW6h///lXh+IYBB2nGR9H6bKHtjAwSZOvqj8VsVQWVVcVEbFUPmtioNNnNxUvKOyqhgqP1XxjsrlYBMnL6jcVTyjMiqGSsVPqNxV3B1s4uQfqFAZFZ9wsImTD1K5VHzSyQsVP1XxVxU/cbCJkxuV31IZFUOlYqiMipXKbxxswh74EJVLxScdbOLki8p3Ki4qo2KojIqhcqcyKlYqdxVDZVQcbMIeeFBZVQyVS8VKZVS8ojIqViqj4qLyTMXBJk5uKlYVQ+Wi8ozKqLhTeUblUjFURsXl5AWVUTEqLhUrlZVKxTMVf3GwCXtgofJKxVBZVQyVu4qhMipWKhVDZVTcHWzi5KbinYqVyl3Fd1RGxZ3KqLgcbOLki8pvVYyKofKOyqgYKhXvHGzi5KbiHZVnKoaKyk9UqIyKoXJ3sImTF1TuKr6jMipURsVK5Z2KoTIqTj5AZaVSsVIZFSuVipXKqLgcbOLkH1EZFe+orCruDjZx8kLFX1WoDJVRMVRGxV3FKwebOLlR+b9UXqkYKqNCZaUyKi4Hm7AHNvAfLk4HaXtLObQAAAAASUVORK5CYII=',
          },
        },
      ],
      run(input: StyleInput & { text: string; format?: 'png' | 'svg' }) {
        return render(input.text, input.format ?? 'png', input);
      },
    },
    {
      name: 'generate_svg',
      description: 'Create a QR code as SVG markup (scalable, small, easy to embed in HTML or documents) for a text or URL.',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['text'],
        properties: {
          text: textField,
          size: { ...sizeField, description: 'Optional width/height attributes in pixels.' },
          ...styleProperties,
        },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['svg', 'version', 'modules', 'error_correction'],
        properties: { svg: { type: 'string' }, ...infoProperties },
      },
      examples: [
        {
          input: { text: 'HI', error_correction: 'L', margin: 1 },
          output: {
            svg: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 23 23" shape-rendering="crispEdges"><path fill="#ffffff" d="M0 0h23v23H0z"/><path stroke="#000000" d="M1 1.5h7m1 0h2m2 0h1m1 0h7M1 2.5h1m5 0h1m2 0h1m2 0h1m1 0h1m5 0h1M1 3.5h1m1 0h3m1 0h1m1 0h1m1 0h1m1 0h1m1 0h1m1 0h3m1 0h1M1 4.5h1m1 0h3m1 0h1m1 0h1m2 0h1m2 0h1m1 0h3m1 0h1M1 5.5h1m1 0h3m1 0h1m1 0h3m3 0h1m1 0h3m1 0h1M1 6.5h1m5 0h1m7 0h1m5 0h1M1 7.5h7m1 0h1m1 0h1m1 0h1m1 0h7M10 8.5h2M1 9.5h4m2 0h1m1 0h1m1 0h1m2 0h1m2 0h3m1 0h1M1 10.5h2m1 0h2m2 0h1m4 0h1m2 0h1m2 0h3M1 11.5h1m3 0h1m1 0h2m1 0h1m2 0h6m1 0h1M1 12.5h1m1 0h1m5 0h3m1 0h2m5 0h1M2 13.5h4m1 0h2m1 0h3m1 0h1m2 0h1m1 0h1M9 14.5h3m2 0h1m1 0h1m2 0h2M1 15.5h7m2 0h2m2 0h2m1 0h1m1 0h2M1 16.5h1m5 0h1m3 0h5m2 0h1m1 0h1M1 17.5h1m1 0h3m1 0h1m2 0h1m1 0h1m2 0h1m2 0h1m2 0h1M1 18.5h1m1 0h3m1 0h1m1 0h3m2 0h1m2 0h1m2 0h1M1 19.5h1m1 0h3m1 0h1m1 0h4m1 0h1m2 0h3M1 20.5h1m5 0h1m1 0h2m1 0h2m1 0h1m1 0h2M1 21.5h7m1 0h5m2 0h1m1 0h1m1 0h1"/></svg>\n',
            version: 1,
            modules: 21,
            error_correction: 'L',
          },
        },
      ],
      async run(input: StyleInput & { text: string }) {
        const { svg, version, modules, error_correction } = await render(input.text, 'svg', input);
        return { svg: svg!, version, modules, error_correction };
      },
    },
    {
      name: 'generate_text',
      description:
        'Render a QR code as Unicode block characters (█ ▀ ▄) that scan from a terminal, chat message or code block; no image needed.',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['text'],
        properties: {
          text: textField,
          error_correction: styleProperties.error_correction,
          margin: { type: 'integer', minimum: 0, maximum: 8, default: 2, description: 'Quiet zone in modules (rounded up to even).' },
          invert: {
            type: 'boolean',
            default: false,
            description: 'Swap dark and light (for dark backgrounds the default already draws light-on-dark).',
          },
        },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['text', 'version', 'modules', 'error_correction'],
        properties: { text: { type: 'string', description: 'Lines of block characters joined with "\\n".' }, ...infoProperties },
      },
      examples: [
        {
          input: { text: 'HI', error_correction: 'L', margin: 0 },
          output: {
            text: [
              '█▀▀▀▀▀█ ▀█  █ █▀▀▀▀▀█',
              '█ ███ █ █ ▀▄▀ █ ███ █',
              '█ ▀▀▀ █ ▀▀▀   █ ▀▀▀ █',
              '▀▀▀▀▀▀▀ ▀▄█ ▀ ▀▀▀▀▀▀▀',
              '██▀█▄ ▀▄▀ ▀ ▄▀ ▄▀▀█▄█',
              '█ ▄ ▀ ▀▀▄█▄ ██▀▀▀▀ █ ',
              ' ▀▀▀▀ ▀▀▄██▀ █ ▄▀ █▄ ',
              '█▀▀▀▀▀█  ▀█▄▄██ ▀▄▀█ ',
              '█ ███ █ ▄█▄▀ ▄▀ ▄▀ ▄▀',
              '█ ▀▀▀ █ ██▀█▄▀▄ ██▀  ',
              '▀▀▀▀▀▀▀ ▀▀▀▀▀  ▀ ▀ ▀ ',
            ].join('\n'),
            version: 1,
            modules: 21,
            error_correction: 'L',
          },
        },
      ],
      async run(input: { text: string; error_correction?: Level; margin?: number; invert?: boolean }) {
        const level = input.error_correction ?? 'M';
        const qr = create(input.text, level);
        let margin = input.margin ?? 2;
        if (margin % 2) margin++;
        const options = {
          errorCorrectionLevel: level,
          margin,
          type: 'utf8' as const,
          color: input.invert ? { dark: '#ffffff', light: '#000000' } : undefined,
        };
        const out = await QRCode.toString(input.text, options);
        return { text: out.replace(/\n+$/, ''), version: qr.version, modules: qr.modules.size, error_correction: level };
      },
    },
    {
      name: 'inspect',
      description:
        'Report how a text would be encoded as a QR code (version, size in modules, encoding modes, mask) without rendering; optionally the module matrix as rows of 0/1.',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['text'],
        properties: {
          text: textField,
          error_correction: styleProperties.error_correction,
          include_matrix: { type: 'boolean', default: false, description: 'Also return the modules as strings of "1" (dark) and "0".' },
        },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['version', 'modules', 'error_correction', 'mask_pattern', 'segments', 'matrix'],
        properties: {
          ...infoProperties,
          mask_pattern: { type: 'integer' },
          segments: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['mode', 'length'],
              properties: { mode: { type: 'string', enum: ['Numeric', 'Alphanumeric', 'Byte', 'Kanji'] }, length: { type: 'integer' } },
            },
          },
          matrix: { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'null' }] },
        },
      },
      examples: [
        {
          input: { text: 'https://example.com' },
          output: {
            version: 2,
            modules: 25,
            error_correction: 'M',
            mask_pattern: 2,
            segments: [{ mode: 'Byte', length: 19 }],
            matrix: null,
          },
        },
      ],
      run(input: { text: string; error_correction?: Level; include_matrix?: boolean }) {
        const level = input.error_correction ?? 'M';
        const qr = create(input.text, level);
        const size = qr.modules.size;
        let matrix: string[] | null = null;
        if (input.include_matrix) {
          matrix = [];
          for (let r = 0; r < size; r++)
            matrix.push(Array.from(qr.modules.data.subarray(r * size, (r + 1) * size), (b) => (b ? '1' : '0')).join(''));
        }
        const segments = (qr.segments as unknown as { mode: { id: string }; getLength(): number }[]).map((s) => ({
          mode: s.mode.id,
          length: s.getLength(),
        }));
        return {
          version: qr.version,
          modules: size,
          error_correction: level,
          mask_pattern: qr.maskPattern as unknown as number,
          segments,
          matrix,
        };
      },
    },
    {
      name: 'wifi',
      description:
        'Create a QR code that joins a Wi-Fi network when scanned with a phone camera (WIFI: payload with SSID, password and security type), as PNG or SVG.',
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['ssid'],
        properties: {
          ssid: { type: 'string', minLength: 1, maxLength: 64, description: 'Network name.' },
          password: { type: 'string', maxLength: 128, default: '', description: 'Network password (omit for open networks).' },
          security: {
            type: 'string',
            enum: ['WPA', 'WEP', 'nopass'],
            default: 'WPA',
            description: 'WPA covers WPA/WPA2/WPA3; nopass for open networks.',
          },
          hidden: { type: 'boolean', default: false, description: 'The SSID is not broadcast.' },
          format: formatField,
          size: sizeField,
          ...styleProperties,
        },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: [...(imageOutput.required as string[]), 'payload'],
        properties: {
          ...(imageOutput.properties as Record<string, JsonSchema>),
          payload: { type: 'string', description: 'The encoded WIFI: text.' },
        },
      },
      examples: [
        {
          input: { ssid: 'Cafe', password: 'p;ss', format: 'svg', error_correction: 'L', margin: 0 },
          output: {
            format: 'svg',
            mime_type: 'image/svg+xml',
            version: 2,
            modules: 25,
            error_correction: 'L',
            svg: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 25 25" shape-rendering="crispEdges"><path fill="#ffffff" d="M0 0h25v25H0z"/><path stroke="#000000" d="M0 0.5h7m2 0h1m5 0h1m2 0h7M0 1.5h1m5 0h1m1 0h2m1 0h3m1 0h2m1 0h1m5 0h1M0 2.5h1m1 0h3m1 0h1m2 0h3m1 0h4m1 0h1m1 0h3m1 0h1M0 3.5h1m1 0h3m1 0h1m1 0h2m1 0h1m1 0h1m1 0h2m1 0h1m1 0h3m1 0h1M0 4.5h1m1 0h3m1 0h1m3 0h1m1 0h1m5 0h1m1 0h3m1 0h1M0 5.5h1m5 0h1m1 0h1m1 0h1m2 0h2m1 0h1m1 0h1m5 0h1M0 6.5h7m1 0h1m1 0h1m1 0h1m1 0h1m1 0h1m1 0h7M12 7.5h1m1 0h1M0 8.5h5m1 0h5m1 0h1m2 0h3m1 0h1m1 0h1m1 0h1M0 9.5h2m1 0h1m1 0h1m3 0h1m5 0h3m2 0h3M1 10.5h1m2 0h1m1 0h4m1 0h2m1 0h2m1 0h4m1 0h3M0 11.5h2m1 0h2m2 0h1m1 0h3m1 0h2m1 0h3m3 0h3M0 12.5h4m2 0h1m2 0h1m1 0h2m1 0h2m2 0h2m2 0h3M0 13.5h1m1 0h1m4 0h2m1 0h1m1 0h1m3 0h2M0 14.5h1m1 0h6m1 0h2m1 0h2m1 0h1m2 0h2m1 0h2m1 0h1M0 15.5h1m2 0h1m5 0h2m1 0h3m1 0h2m5 0h1M0 16.5h1m2 0h1m1 0h2m1 0h1m4 0h1m1 0h6m1 0h1M8 17.5h1m2 0h2m1 0h1m1 0h1m3 0h1m1 0h3M0 18.5h7m1 0h1m1 0h2m1 0h4m1 0h1m1 0h5M0 19.5h1m5 0h1m4 0h2m1 0h3m3 0h1m1 0h3M0 20.5h1m1 0h3m1 0h1m1 0h2m3 0h1m1 0h10M0 21.5h1m1 0h3m1 0h1m1 0h5m1 0h3m7 0h1M0 22.5h1m1 0h3m1 0h1m1 0h1m1 0h2m1 0h2m4 0h1m1 0h1m2 0h1M0 23.5h1m5 0h1m1 0h2m1 0h2m1 0h1m1 0h5M0 24.5h7m1 0h1m1 0h1m2 0h1m1 0h1m2 0h5m1 0h1"/></svg>\n',
            base64: null,
            data_url:
              'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAyNSAyNSIgc2hhcGUtcmVuZGVyaW5nPSJjcmlzcEVkZ2VzIj48cGF0aCBmaWxsPSIjZmZmZmZmIiBkPSJNMCAwaDI1djI1SDB6Ii8+PHBhdGggc3Ryb2tlPSIjMDAwMDAwIiBkPSJNMCAwLjVoN20yIDBoMW01IDBoMW0yIDBoN00wIDEuNWgxbTUgMGgxbTEgMGgybTEgMGgzbTEgMGgybTEgMGgxbTUgMGgxTTAgMi41aDFtMSAwaDNtMSAwaDFtMiAwaDNtMSAwaDRtMSAwaDFtMSAwaDNtMSAwaDFNMCAzLjVoMW0xIDBoM20xIDBoMW0xIDBoMm0xIDBoMW0xIDBoMW0xIDBoMm0xIDBoMW0xIDBoM20xIDBoMU0wIDQuNWgxbTEgMGgzbTEgMGgxbTMgMGgxbTEgMGgxbTUgMGgxbTEgMGgzbTEgMGgxTTAgNS41aDFtNSAwaDFtMSAwaDFtMSAwaDFtMiAwaDJtMSAwaDFtMSAwaDFtNSAwaDFNMCA2LjVoN20xIDBoMW0xIDBoMW0xIDBoMW0xIDBoMW0xIDBoMW0xIDBoN00xMiA3LjVoMW0xIDBoMU0wIDguNWg1bTEgMGg1bTEgMGgxbTIgMGgzbTEgMGgxbTEgMGgxbTEgMGgxTTAgOS41aDJtMSAwaDFtMSAwaDFtMyAwaDFtNSAwaDNtMiAwaDNNMSAxMC41aDFtMiAwaDFtMSAwaDRtMSAwaDJtMSAwaDJtMSAwaDRtMSAwaDNNMCAxMS41aDJtMSAwaDJtMiAwaDFtMSAwaDNtMSAwaDJtMSAwaDNtMyAwaDNNMCAxMi41aDRtMiAwaDFtMiAwaDFtMSAwaDJtMSAwaDJtMiAwaDJtMiAwaDNNMCAxMy41aDFtMSAwaDFtNCAwaDJtMSAwaDFtMSAwaDFtMyAwaDJNMCAxNC41aDFtMSAwaDZtMSAwaDJtMSAwaDJtMSAwaDFtMiAwaDJtMSAwaDJtMSAwaDFNMCAxNS41aDFtMiAwaDFtNSAwaDJtMSAwaDNtMSAwaDJtNSAwaDFNMCAxNi41aDFtMiAwaDFtMSAwaDJtMSAwaDFtNCAwaDFtMSAwaDZtMSAwaDFNOCAxNy41aDFtMiAwaDJtMSAwaDFtMSAwaDFtMyAwaDFtMSAwaDNNMCAxOC41aDdtMSAwaDFtMSAwaDJtMSAwaDRtMSAwaDFtMSAwaDVNMCAxOS41aDFtNSAwaDFtNCAwaDJtMSAwaDNtMyAwaDFtMSAwaDNNMCAyMC41aDFtMSAwaDNtMSAwaDFtMSAwaDJtMyAwaDFtMSAwaDEwTTAgMjEuNWgxbTEgMGgzbTEgMGgxbTEgMGg1bTEgMGgzbTcgMGgxTTAgMjIuNWgxbTEgMGgzbTEgMGgxbTEgMGgxbTEgMGgybTEgMGgybTQgMGgxbTEgMGgxbTIgMGgxTTAgMjMuNWgxbTUgMGgxbTEgMGgybTEgMGgybTEgMGgxbTEgMGg1TTAgMjQuNWg3bTEgMGgxbTEgMGgxbTIgMGgxbTEgMGgxbTIgMGg1bTEgMGgxIi8+PC9zdmc+Cg==',
            payload: 'WIFI:T:WPA;S:Cafe;P:p\\;ss;;',
          },
        },
      ],
      async run(
        input: StyleInput & {
          ssid: string;
          password?: string;
          security?: 'WPA' | 'WEP' | 'nopass';
          hidden?: boolean;
          format?: 'png' | 'svg';
        },
      ) {
        const security = input.security ?? 'WPA';
        if (security !== 'nopass' && !input.password)
          throw new ActionInputError(`security ${security} needs a password (use "nopass" for an open network).`);
        const payload = `WIFI:T:${security};S:${wifiEscape(input.ssid)};${security === 'nopass' ? '' : `P:${wifiEscape(input.password ?? '')};`}${input.hidden ? 'H:true;' : ''};`;
        return { ...(await render(payload, input.format ?? 'png', input)), payload };
      },
    },
  ],
};

export default qrcode;
