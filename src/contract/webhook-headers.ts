/**
 * Custom headers of a webhook subscription (`headers` on create and update): added to every
 * request to its receiver. The API's schema and the dashboard's form both check them here.
 */

/** Headers per subscription, at most. */
export const WEBHOOK_HEADERS_MAX_COUNT = 20;
/** Names and values together, at most (bytes; ASCII only, so characters). */
export const WEBHOOK_HEADERS_MAX_BYTES = 4096;
/** One header name, at most. */
export const WEBHOOK_HEADER_NAME_MAX_LENGTH = 100;

/** An HTTP field name: an RFC 9110 token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A field value we send as is: visible ASCII, spaces and tabs (no CR, LF or other control characters). */
const VALUE = /^[\t\x20-\x7e]*$/;

/** Names the platform sets itself, or that belong to the connection: refused (compared case-insensitively). */
const RESERVED = new Set([
  'accept-encoding',
  'baggage',
  'connection',
  'content-encoding',
  'content-length',
  'content-type',
  'expect',
  'host',
  'keep-alive',
  'te',
  'trailer',
  'traceparent',
  'tracestate',
  'transfer-encoding',
  'upgrade',
  'user-agent',
  'via',
]);
/** Prefixes of names the platform sets itself (the signature and delivery headers) or that proxies own. */
const RESERVED_PREFIXES = ['webhook-', 'x-webhook-', 'proxy-', 'sec-'];

export function isReservedHeaderName(name: string): boolean {
  const lower = name.toLowerCase();
  return RESERVED.has(lower) || RESERVED_PREFIXES.some((p) => lower.startsWith(p));
}

export interface HeaderProblem {
  /** The header name the problem is about; absent for the set as a whole. */
  name?: string;
  message: string;
}

/** What is wrong with a set of custom headers, or nothing. */
export function customHeaderProblems(headers: Record<string, string>): HeaderProblem[] {
  const problems: HeaderProblem[] = [];
  const names = Object.keys(headers);
  if (names.length > WEBHOOK_HEADERS_MAX_COUNT) {
    problems.push({ message: `At most ${WEBHOOK_HEADERS_MAX_COUNT} custom headers.` });
  }
  let bytes = 0;
  const seen = new Set<string>();
  for (const name of names) {
    const value = headers[name]!;
    bytes += name.length + value.length;
    if (name.length === 0 || name.length > WEBHOOK_HEADER_NAME_MAX_LENGTH || !TOKEN.test(name)) {
      problems.push({
        name,
        message: `'${name}' is not a valid header name (1–${WEBHOOK_HEADER_NAME_MAX_LENGTH} letters, digits or !#$%&'*+-.^_\`|~).`,
      });
      continue;
    }
    if (isReservedHeaderName(name)) {
      problems.push({
        name,
        message: `'${name}' is set by the platform or the connection and cannot be a custom header (reserved: Content-Type, Content-Length, Host, User-Agent, Connection, webhook-*, X-Webhook-*, and the like).`,
      });
      continue;
    }
    const lower = name.toLowerCase();
    if (seen.has(lower)) problems.push({ name, message: `'${name}' is given twice (header names are case-insensitive).` });
    seen.add(lower);
    if (!VALUE.test(value)) {
      problems.push({
        name,
        message: `The value of '${name}' must be printable ASCII (spaces and tabs allowed; no line breaks or other control characters).`,
      });
    }
  }
  if (bytes > WEBHOOK_HEADERS_MAX_BYTES) {
    problems.push({
      message: `Custom headers may total at most ${WEBHOOK_HEADERS_MAX_BYTES} bytes of names and values (these are ${bytes}).`,
    });
  }
  return problems;
}
