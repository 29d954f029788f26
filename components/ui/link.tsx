import NextLink from 'next/link';
import type { ComponentProps } from 'react';

/**
 * next/link without prefetching by default. Every dashboard page is rendered per request and has
 * no loading.js, so Next's default ("auto") prefetch of each link in view fetches a render that
 * carries nothing a click can use, and a page with the section navigation sent two dozen of them
 * to the server after every load. A click fetches the page as before. `prefetch` still opts in.
 */
export function Link({ prefetch = false, ...props }: ComponentProps<typeof NextLink>) {
  return <NextLink prefetch={prefetch} {...props} />;
}
