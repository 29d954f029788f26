import { FetchError, guardedFetch, SsrfError, type GuardedResponse } from '../../net/ssrf';
import { anyJson } from '../json-schema';
import { ActionInputError, type ActionContext, type ModuleDefinition } from '../types';

const MAX_BODY_BYTES = 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 10_000;
/** The worker's hard deadline: a little above the request's own time limit, so that one reports first. */
const ACTION_TIMEOUT_MS = 12_000;

/** Headers the platform sets itself (or that would let a caller smuggle requests). */
const FORBIDDEN_HEADERS = new Set([
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'proxy-authorization',
  'proxy-connection',
]);

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';

interface RequestInput {
  url: string;
  method?: Method;
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean>;
  body?: string;
  timeout_ms?: number;
  max_bytes?: number;
  follow_redirects?: boolean;
}

function buildUrl(url: string, query: RequestInput['query']): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ActionInputError('url is not a valid absolute URL.');
  }
  for (const [k, v] of Object.entries(query ?? {})) u.searchParams.append(k, String(v));
  return u.href;
}

function checkHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase();
    if (FORBIDDEN_HEADERS.has(lower) || lower.startsWith('proxy-')) throw new ActionInputError(`The header "${name}" cannot be set.`);
    if (/[\r\n\0]/.test(value)) throw new ActionInputError(`The header "${name}" contains a line break.`);
    out[lower] = value;
  }
  return out;
}

async function send(
  input: RequestInput,
  ctx: ActionContext,
  extra: { body?: string; headers?: Record<string, string> } = {},
): Promise<GuardedResponse> {
  const method = input.method ?? 'GET';
  const body = extra.body ?? input.body;
  if (body !== undefined && (method === 'GET' || method === 'HEAD')) throw new ActionInputError(`A ${method} request cannot have a body.`);
  const headers = { ...checkHeaders(input.headers), ...extra.headers };
  try {
    return await guardedFetch(buildUrl(input.url, input.query), {
      method,
      headers,
      body,
      allowPrivate: ctx.allowPrivateNetwork,
      signal: ctx.signal,
      timeoutMs: Math.min(input.timeout_ms ?? DEFAULT_TIMEOUT_MS, DEFAULT_TIMEOUT_MS),
      maxBytes: Math.min(input.max_bytes ?? MAX_BODY_BYTES, MAX_BODY_BYTES),
      maxRedirects: input.follow_redirects === false ? 0 : 5,
    });
  } catch (err) {
    if (err instanceof SsrfError) throw new ActionInputError(err.message);
    if (err instanceof FetchError) throw new Error(err.message, { cause: err });
    throw err;
  }
}

const TEXTUAL =
  /^(text\/|application\/(json|xml|xhtml\+xml|javascript|ecmascript|x-www-form-urlencoded|ld\+json|problem\+json|graphql|yaml|x-yaml|csv|rss\+xml|atom\+xml)|[^;]*\+(json|xml)\b)/i;

/** What a fetch's output may take as JSON: the engine's 1 MiB output cap, with room to spare. */
const OUTPUT_BUDGET_BYTES = 1024 * 1024 - 1024;
const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

function decodeBody(res: Pick<GuardedResponse, 'headers' | 'body'>, mode: 'auto' | 'text' | 'base64') {
  const type = res.headers['content-type'] ?? '';
  const charset = /charset="?([\w-]+)/i.exec(type)?.[1]?.toLowerCase();
  if (mode === 'base64') return { body: res.body.toString('base64'), body_encoding: 'base64' as const };
  let text: string | null;
  try {
    const decoder = new TextDecoder(charset ?? 'utf-8', { fatal: mode === 'auto' && !TEXTUAL.test(type) });
    text = decoder.decode(res.body);
  } catch {
    text = mode === 'text' ? res.body.toString('utf8') : null;
  }
  if (text === null) return { body: res.body.toString('base64'), body_encoding: 'base64' as const };
  return { body: text, body_encoding: 'text' as const };
}

const urlField = {
  type: 'string',
  minLength: 8,
  maxLength: 4096,
  pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
  description: 'Absolute http:// or https:// URL (public hosts only).',
};
const headersField = {
  type: 'object',
  maxProperties: 50,
  propertyNames: { pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$" },
  additionalProperties: { type: 'string', maxLength: 8192 },
  default: {},
  description:
    'Request headers, e.g. {"Authorization": "Bearer …", "Accept": "application/json"}. Host, Content-Length and hop-by-hop headers are set by the platform.',
};
const queryField = {
  type: 'object',
  maxProperties: 100,
  additionalProperties: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
  default: {},
  description: 'Query parameters appended to the URL (URL-encoded for you).',
};
const timeoutField = {
  type: 'integer',
  minimum: 100,
  maximum: DEFAULT_TIMEOUT_MS,
  default: DEFAULT_TIMEOUT_MS,
  description: 'Time limit for the whole request, redirects included, in ms.',
};
const redirectsField = { type: 'boolean', default: true, description: 'Follow up to 5 redirects (each target is checked again).' };

const responseHeaders = { type: 'object', additionalProperties: { type: 'string' }, description: 'Response headers, lower-case names.' };
const common = {
  status: { type: 'integer', description: 'HTTP status code.' },
  ok: { type: 'boolean', description: 'Status is 200-299.' },
  url: { type: 'string', description: 'Final URL after redirects.' },
  redirects: { type: 'integer' },
  headers: responseHeaders,
  elapsed_ms: { type: 'integer' },
};

const FETCH_EXAMPLE_OUTPUT = {
  status: 200,
  status_text: 'OK',
  ok: true,
  url: 'https://example.com/',
  redirects: 0,
  headers: { 'content-type': 'text/html; charset=UTF-8', 'content-length': '1256' },
  content_type: 'text/html; charset=UTF-8',
  body: '<!doctype html>\n<html>\n<head>\n    <title>Example Domain</title>…',
  body_encoding: 'text',
  truncated: false,
  bytes: 1256,
  elapsed_ms: 182,
};

const http: ModuleDefinition = {
  name: 'http',
  version: '1.0.0',
  title: 'HTTP client',
  description:
    'Call public HTTP(S) APIs and web pages: GET/POST/PUT/PATCH/DELETE/HEAD with headers, query and body, JSON convenience, redirects re-checked hop by hop, 10 s time limit and 1 MB response limit. Private, loopback and cloud-metadata addresses are refused (SSRF guard).',
  category: 'web',
  tags: ['http', 'https', 'fetch', 'api', 'rest', 'request', 'web', 'json', 'url', 'download'],
  actions: [
    {
      name: 'fetch',
      description:
        'Make an HTTP request to a public URL and return the status, headers and body (text, or base64 for binary; truncated to 1 MB with truncated: true). Redirects are followed (max 5). Non-2xx statuses are returned, not errors.',
      nondeterministic: true,
      timeoutMs: ACTION_TIMEOUT_MS,
      io: true,
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['url'],
        properties: {
          url: urlField,
          method: {
            type: 'string',
            enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'],
            default: 'GET',
            description: 'HTTP method.',
          },
          headers: headersField,
          query: queryField,
          body: {
            type: 'string',
            maxLength: MAX_BODY_BYTES,
            description: 'Request body (set a Content-Type header to match). Not allowed for GET/HEAD.',
          },
          timeout_ms: timeoutField,
          max_bytes: {
            type: 'integer',
            minimum: 1,
            maximum: MAX_BODY_BYTES,
            default: MAX_BODY_BYTES,
            description: 'Keep at most this many bytes of the response body.',
          },
          follow_redirects: redirectsField,
          response_encoding: {
            type: 'string',
            enum: ['auto', 'text', 'base64'],
            default: 'auto',
            description: 'auto: text for textual content types or valid UTF-8, base64 otherwise.',
          },
        },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: [
          'status',
          'status_text',
          'ok',
          'url',
          'redirects',
          'headers',
          'content_type',
          'body',
          'body_encoding',
          'truncated',
          'bytes',
          'elapsed_ms',
        ],
        properties: {
          ...common,
          status_text: { type: 'string' },
          content_type: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          body: { type: 'string' },
          body_encoding: { type: 'string', enum: ['text', 'base64'] },
          truncated: {
            type: 'boolean',
            description:
              'The body was cut: at max_bytes, or shorter so that the whole output fits in 1 MiB as JSON (base64 and escapes take more room than the bytes).',
          },
          bytes: { type: 'integer', description: 'Body bytes returned (after decompression).' },
        },
      },
      examples: [
        { input: { url: 'https://example.com/' }, output: FETCH_EXAMPLE_OUTPUT },
        {
          input: {
            url: 'https://httpbin.org/post',
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: '{"hello":"world"}',
            timeout_ms: 5000,
          },
          output: {
            ...FETCH_EXAMPLE_OUTPUT,
            url: 'https://httpbin.org/post',
            headers: { 'content-type': 'application/json' },
            content_type: 'application/json',
            body: '{"json": {"hello": "world"}}',
            bytes: 28,
          },
        },
      ],
      async run(input: RequestInput & { response_encoding?: 'auto' | 'text' | 'base64' }, ctx: ActionContext) {
        const res = await send(input, ctx);
        const output = (body: Buffer, truncated: boolean) => ({
          status: res.status,
          status_text: res.statusText,
          ok: res.status >= 200 && res.status < 300,
          url: res.url,
          redirects: res.redirects,
          headers: res.headers,
          content_type: res.headers['content-type'] ?? null,
          ...decodeBody({ ...res, body }, input.response_encoding ?? 'auto'),
          truncated,
          bytes: body.length,
          elapsed_ms: res.elapsedMs,
        });
        // The body as text or base64, with the headers, must fit an action's output (1 MiB as
        // JSON): base64 and JSON escapes make it larger than its bytes, so it is cut further.
        let body = res.body;
        let out = output(body, res.truncated);
        for (let size = jsonBytes(out); size > OUTPUT_BUDGET_BYTES; size = jsonBytes(out)) {
          body = body.subarray(0, Math.floor((body.length * OUTPUT_BUDGET_BYTES) / size) - 64);
          out = output(body, true);
        }
        return out;
      },
    },
    {
      name: 'head',
      description:
        'Check a public URL without downloading it (HTTP HEAD): status, final URL after redirects, content type, size and headers. Useful to test that a link works.',
      nondeterministic: true,
      timeoutMs: ACTION_TIMEOUT_MS,
      io: true,
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['url'],
        properties: { url: urlField, headers: headersField, timeout_ms: timeoutField, follow_redirects: redirectsField },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['status', 'ok', 'url', 'redirects', 'headers', 'content_type', 'content_length', 'elapsed_ms'],
        properties: {
          ...common,
          content_type: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          content_length: { anyOf: [{ type: 'integer' }, { type: 'null' }], description: 'From Content-Length, when sent.' },
        },
      },
      examples: [
        {
          input: { url: 'http://example.com/' },
          output: {
            status: 200,
            ok: true,
            url: 'http://example.com/',
            redirects: 0,
            headers: { 'content-type': 'text/html', 'content-length': '1256' },
            content_type: 'text/html',
            content_length: 1256,
            elapsed_ms: 95,
          },
        },
      ],
      async run(input: Omit<RequestInput, 'method' | 'body' | 'query' | 'max_bytes'>, ctx: ActionContext) {
        const res = await send({ ...input, method: 'HEAD' }, ctx);
        const length = Number(res.headers['content-length']);
        return {
          status: res.status,
          ok: res.status >= 200 && res.status < 300,
          url: res.url,
          redirects: res.redirects,
          headers: res.headers,
          content_type: res.headers['content-type'] ?? null,
          content_length: res.headers['content-length'] !== undefined && Number.isSafeInteger(length) && length >= 0 ? length : null,
          elapsed_ms: res.elapsedMs,
        };
      },
    },
    {
      name: 'json',
      description:
        'Call a public JSON API: sends `json` (any JSON value) as the body with Content-Type application/json, asks for JSON, and returns the parsed response as `data`. Fails if the response is not JSON.',
      nondeterministic: true,
      timeoutMs: ACTION_TIMEOUT_MS,
      io: true,
      inputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['url'],
        properties: {
          url: urlField,
          method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], default: 'GET', description: 'HTTP method.' },
          headers: headersField,
          query: queryField,
          json: anyJson('The request body as JSON, any JSON value (object, array or value). Not allowed for GET.'),
          timeout_ms: timeoutField,
          follow_redirects: redirectsField,
        },
      },
      outputSchema: {
        type: 'object',
        additionalProperties: false,
        required: ['status', 'ok', 'url', 'redirects', 'headers', 'data', 'elapsed_ms'],
        properties: { ...common, data: anyJson('The parsed JSON response, any JSON value (null for an empty body).') },
      },
      examples: [
        {
          input: { url: 'https://api.github.com/repos/nodejs/node', headers: { Accept: 'application/vnd.github+json' } },
          output: {
            status: 200,
            ok: true,
            url: 'https://api.github.com/repos/nodejs/node',
            redirects: 0,
            headers: { 'content-type': 'application/json; charset=utf-8' },
            data: { full_name: 'nodejs/node', stargazers_count: 110000 },
            elapsed_ms: 240,
          },
        },
        {
          input: { url: 'https://api.example.com/v1/items', method: 'POST', json: { name: 'Widget', qty: 2 } },
          output: {
            status: 201,
            ok: true,
            url: 'https://api.example.com/v1/items',
            redirects: 0,
            headers: { 'content-type': 'application/json' },
            data: { id: 'itm_123', name: 'Widget', qty: 2 },
            elapsed_ms: 130,
          },
        },
      ],
      async run(input: Omit<RequestInput, 'body' | 'max_bytes'> & { json?: unknown }, ctx: ActionContext) {
        const hasBody = input.json !== undefined;
        const extraHeaders: Record<string, string> = {};
        const given = checkHeaders(input.headers);
        if (!given['accept']) extraHeaders['accept'] = 'application/json';
        if (hasBody && !given['content-type']) extraHeaders['content-type'] = 'application/json';
        const res = await send(input, ctx, { body: hasBody ? JSON.stringify(input.json) : undefined, headers: extraHeaders });
        if (res.truncated) throw new Error(`The JSON response is larger than ${MAX_BODY_BYTES} bytes.`);
        const text = res.body.toString('utf8');
        let data: unknown = null;
        if (text.trim() !== '') {
          try {
            data = JSON.parse(text);
          } catch {
            throw new Error(`The response (HTTP ${res.status}, ${res.headers['content-type'] ?? 'no content type'}) is not valid JSON.`);
          }
        }
        return {
          status: res.status,
          ok: res.status >= 200 && res.status < 300,
          url: res.url,
          redirects: res.redirects,
          headers: res.headers,
          data,
          elapsed_ms: res.elapsedMs,
        };
      },
    },
  ],
};

export const HTTP_LIMITS = { MAX_BODY_BYTES, DEFAULT_TIMEOUT_MS } as const;
export default http;
