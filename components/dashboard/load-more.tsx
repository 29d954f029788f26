'use client';

import { Button } from '@/components/ui/button';
import { QueryError } from './query-error';

/** The part of a cursor-paged query (useCursorPages) that "Load more" needs. */
interface PagedList {
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  isError: boolean;
  error: unknown;
  fetchNextPage: () => Promise<unknown>;
}

/** "Load more" under a paged table while the API has more, and a failed page's error with a retry. */
export function LoadMore({ list }: { list: PagedList }) {
  return (
    <>
      {list.hasNextPage ? (
        <Button
          variant="secondary"
          className="justify-self-start"
          loading={list.isFetchingNextPage}
          onClick={() => void list.fetchNextPage()}
        >
          Load more
        </Button>
      ) : null}
      {list.isError ? <QueryError error={list.error} retry={() => void list.fetchNextPage()} /> : null}
    </>
  );
}
