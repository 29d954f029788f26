import type { Deprecation } from '../context';

/**
 * The headers every answer of a deprecated operation carries (docs/versioning.md): `Deprecation`
 * as an RFC 9745 date (`@<unix seconds>`), `Sunset` as an RFC 8594 HTTP-date, and a `Link` to
 * the explanation (`rel="deprecation"`) and, with a sunset, the same link as `rel="sunset"`.
 */
export function deprecationHeaders(deprecation: Deprecation): Record<string, string> {
  const since = dateOf(deprecation.since, 'since');
  const headers: Record<string, string> = { Deprecation: `@${Math.floor(since.getTime() / 1000)}` };
  if (deprecation.sunset) {
    const sunset = dateOf(deprecation.sunset, 'sunset');
    if (sunset.getTime() - since.getTime() < SIX_MONTHS_MS) {
      throw new Error(`A sunset must come at least six months after the deprecation (${deprecation.since} -> ${deprecation.sunset}).`);
    }
    headers.Sunset = sunset.toUTCString();
  }
  if (deprecation.link) {
    const link = new URL(deprecation.link).href;
    headers.Link = [`<${link}>; rel="deprecation"`, ...(deprecation.sunset ? [`<${link}>; rel="sunset"`] : [])].join(', ');
  }
  return headers;
}

/** 183 days: the shortest notice between a deprecation and its sunset. */
const SIX_MONTHS_MS = 183 * 24 * 60 * 60 * 1000;

function dateOf(value: string, name: string): Date {
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime()))
    throw new Error(`deprecation.${name} is not an ISO 8601 date: ${value}`);
  return date;
}
