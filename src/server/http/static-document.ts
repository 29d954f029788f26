import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import Negotiator from 'negotiator';

type Encoding = 'br' | 'gzip' | 'identity';
const ENCODINGS: Encoding[] = ['br', 'gzip', 'identity'];

const compress: Record<Exclude<Encoding, 'identity'>, (body: Buffer) => Promise<Buffer>> = {
  // Quality 5: 327 KB of OpenAPI to 42 KB in 16 ms; 11 made it 37 KB in 380 ms.
  br: (body) =>
    promisify(brotliCompress)(body, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
    }),
  gzip: (body) => promisify(gzip)(body, { level: 9 }),
};

/** The best encoding the request accepts (ties go to the smaller); identity when it accepts none of them. */
function acceptedEncoding(req: IncomingMessage): Encoding {
  // negotiator 1.x takes the server's preference for ties; its published types predate it.
  const negotiator = new Negotiator(req) as Negotiator & { encodings(available: string[], options: { preferred: string[] }): string[] };
  return (negotiator.encodings(ENCODINGS, { preferred: ENCODINGS })[0] as Encoding | undefined) ?? 'identity';
}

/**
 * RFC 9110 §13.1.2: `If-None-Match` is `*` or lists the tag, compared weakly. Evaluated whatever the
 * request's `Cache-Control` says: fetch() adds `no-cache` to every request with a conditional
 * header, and the `fresh` package takes that for a reload and never answers 304.
 */
function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => opaque(tag) === opaque(etag));
}

interface Variant {
  body: Buffer;
  etag: string;
}

/**
 * A document served as it was built (the OpenAPI documents, the workflow definition's JSON
 * Schema, the error reference without the dashboard): `build()`'s answer, a string as it is and
 * anything else as JSON, built and encoded on first use only (a 150 KB document
 * re-encoded per request cost three times the CPU); compressed with Brotli or gzip when the client
 * accepts it (each encoding made on its first request, off the event loop, and kept), with an ETag
 * per encoding, so a client that has it gets a 304 without the body (`Cache-Control: no-cache`:
 * kept, but checked on every use).
 */
export function staticDocument(build: () => unknown, contentType: string) {
  let encoded: Buffer | undefined;
  const body = () => {
    if (!encoded) {
      const built = build();
      encoded = Buffer.from(typeof built === 'string' ? built : JSON.stringify(built));
    }
    return encoded;
  };
  const variants = new Map<Encoding, Promise<Variant>>();
  let digest: string | undefined;
  const variant = (encoding: Encoding): Promise<Variant> => {
    let made = variants.get(encoding);
    if (!made) {
      const identity = body();
      digest ??= createHash('sha256').update(identity).digest('base64url').slice(0, 27);
      made = (encoding === 'identity' ? Promise.resolve(identity) : compress[encoding](identity)).then((body) => ({
        body,
        etag: `"${digest}${encoding === 'identity' ? '' : `-${encoding}`}"`,
      }));
      variants.set(encoding, made);
    }
    return made;
  };

  return {
    /** The document's bytes as built (uncompressed). */
    body,
    /** Answers a GET or HEAD with the variant the request accepts; `headers` are the response's others (CORS, pools...). */
    async send(req: IncomingMessage, res: ServerResponse, headers: Record<string, string>): Promise<void> {
      const encoding = acceptedEncoding(req);
      const { body, etag } = await variant(encoding);
      const cache = { ...headers, 'Cache-Control': 'no-cache', ETag: etag, Vary: 'Accept-Encoding' };
      if (matchesIfNoneMatch(req.headers['if-none-match'], etag)) {
        res.writeHead(304, cache);
        res.end();
        return;
      }
      res.writeHead(200, {
        ...cache,
        'Content-Type': contentType,
        'Content-Length': body.length,
        ...(encoding === 'identity' ? {} : { 'Content-Encoding': encoding }),
      });
      res.end(body);
    },
  };
}

export type StaticDocument = ReturnType<typeof staticDocument>;
