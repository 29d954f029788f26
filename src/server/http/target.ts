/** The request target (`req.url`): its raw path, its query, and the URL when one is needed. */

/**
 * The path as it arrived, before any normalisation: `/api/v1/%2e%2e/health` stays under
 * `/api/` (and matches no route) instead of becoming `/api/health`.
 */
export function rawPathname(url: string | undefined): string {
  const target = url ?? '/';
  if (!target.startsWith('/')) return parseTarget(target).pathname; // absolute-form
  const end = target.search(/[?#]/);
  return end === -1 ? target : target.slice(0, end);
}

/** The request target as a URL; one that cannot be parsed names nothing (`/`, answered 404 by Next or the API). */
export function parseTarget(target: string): URL {
  try {
    return new URL(target, 'http://localhost');
  } catch {
    return new URL('http://localhost/');
  }
}

/** An origin-form target of visible ASCII without `#`: the URL parser keeps its query as sent. */
const PLAIN_TARGET = /^\/[\x21\x22\x24-\x7e]*$/;

/**
 * `parseTarget(target).searchParams`, without building the URL for a plain target (the URL
 * parser was ~3% of a read's CPU): its query, the text after the first `?`, parses the same.
 */
export function searchParamsOf(target: string): URLSearchParams {
  if (!PLAIN_TARGET.test(target)) return parseTarget(target).searchParams;
  const query = target.indexOf('?');
  return new URLSearchParams(query === -1 ? '' : target.slice(query + 1));
}
