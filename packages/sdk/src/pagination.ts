import type { RequestOptions } from './core.js';
import { AmpError } from './errors.js';

/** A list answer of the API: `{ data, has_more, next_cursor }` (some add `total` and more). */
export interface ListBody<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/**
 * One page of a list. `for await (const item of page)` walks this page and every later one
 * (following `next_cursor` while `has_more`); `getNextPage()` fetches the next page alone.
 */
export class Page<T, B extends ListBody<T> = ListBody<T>> implements AsyncIterable<T> {
  readonly data: T[];
  readonly has_more: boolean;
  readonly next_cursor: string | null;
  /** The whole answer (with fields such as `total` where the operation has them). */
  readonly body: B;

  constructor(
    body: B,
    private readonly fetchPage: (cursor: string) => Promise<Page<T, B>>,
  ) {
    this.body = body;
    this.data = body.data;
    this.has_more = body.has_more;
    this.next_cursor = body.next_cursor;
  }

  hasNextPage(): boolean {
    return this.has_more && typeof this.next_cursor === 'string' && this.next_cursor !== '';
  }

  /** The next page; throws when there is none (check `hasNextPage()`). */
  async getNextPage(): Promise<Page<T, B>> {
    if (!this.hasNextPage()) throw new AmpError('There is no next page.');
    return this.fetchPage(this.next_cursor as string);
  }

  /** Every page from this one on. */
  async *pages(): AsyncGenerator<Page<T, B>> {
    yield this;
    let page = this.hasNextPage() ? await this.getNextPage() : undefined;
    while (page) {
      yield page;
      page = page.hasNextPage() ? await page.getNextPage() : undefined;
    }
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for await (const page of this.pages()) yield* page.data;
  }
}

/**
 * The first page of a list operation, each next page fetched with `cursorParam` (the API's
 * `cursor`, or `after` for a webhook's messages) set to the previous page's `next_cursor`.
 */
export async function paginate<T, B extends ListBody<T>>(
  fetchBody: (query: Record<string, unknown>, options?: RequestOptions) => Promise<B>,
  query: Record<string, unknown>,
  options: RequestOptions | undefined,
  cursorParam = 'cursor',
): Promise<Page<T, B>> {
  const load = async (q: Record<string, unknown>): Promise<Page<T, B>> =>
    new Page<T, B>(await fetchBody(q, options), (cursor) => load({ ...q, [cursorParam]: cursor }));
  return load(query);
}

/** Every item of a list, page after page: `for await (const m of iterate(client.modules.list()))`. */
export async function* iterate<T>(first: Promise<Page<T, ListBody<T>>> | Page<T, ListBody<T>>): AsyncGenerator<T> {
  yield* await first;
}
