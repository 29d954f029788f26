'use client';

import * as Collapsible from '@radix-ui/react-collapsible';
import { ChevronRight } from 'lucide-react';
import { Link } from '@/components/ui/link';
import { useState } from 'react';
import type { RouterOutputs } from '@/client/trpc/types';
import { Badge } from '@/components/ui/badge';
import { ForDevelopers } from '@/components/ui/for-developers';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { PageHeader } from '@/components/ui/page-header';
import { SkeletonRows } from '@/components/ui/skeleton';
import { QueryError } from '@/components/dashboard/query-error';
import { useEventCatalog } from './webhook-controls';

type EventTypeEntry = RouterOutputs['webhooks']['eventTypes']['data'][number];

/**
 * The event catalog: every kind a webhook can receive, what it means, an example of its `data`
 * and the JSON Schema of it, as GET /api/v1/webhooks/event-types serves them.
 */
export function EventCatalogView() {
  const catalog = useEventCatalog();
  return (
    <div className="grid grid-cols-1 gap-6">
      <nav aria-label="Breadcrumb" className="text-sm">
        <Link href="/dashboard/webhooks" className="text-indigo-700 underline underline-offset-2 dark:text-indigo-300">
          Webhooks
        </Link>
        <span aria-hidden="true"> / </span>
        <span>Event types</span>
      </nav>
      <PageHeader
        title="Event types"
        description={
          <>
            Every event a webhook can receive, what it means, an example of its <code>data</code> and its JSON Schema. Pick the ones you
            need when you create a webhook, and send any of them as a test from the webhook&apos;s page.
          </>
        }
      />
      <ForDevelopers>
        <p>
          The same catalog from the API, readable with any API key: <code>GET /api/v1/webhooks/event-types</code>.
        </p>
      </ForDevelopers>
      {catalog.isPending ? (
        <SkeletonRows rows={6} label="Loading the event types" />
      ) : catalog.isError ? (
        <QueryError error={catalog.error} retry={() => void catalog.refetch()} />
      ) : (
        <ul className="grid grid-cols-1 gap-4" aria-label="Event types" data-testid="event-types">
          {catalog.data.data.map((entry) => (
            <li key={entry.type} data-testid="event-type" data-type={entry.type}>
              <EventTypeCard entry={entry} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function EventTypeCard({ entry }: { entry: EventTypeEntry }) {
  const [schemaOpen, setSchemaOpen] = useState(false);
  return (
    <Card>
      <CardHeader>
        <CardTitle className="flex flex-wrap items-center gap-2">
          <code className="font-mono text-base break-all" id={entry.type}>
            {entry.type}
          </code>
          {entry.subscribable ? null : <Badge>test only</Badge>}
        </CardTitle>
        <CardDescription>{entry.description}</CardDescription>
      </CardHeader>
      <CardContent className="grid grid-cols-1 gap-3 text-sm">
        <div className="grid grid-cols-1 gap-1">
          <p className="font-medium">Example data</p>
          <pre
            tabIndex={0}
            aria-label={`Example data of ${entry.type}`}
            className="max-h-80 overflow-auto rounded-md border border-slate-200 bg-slate-50 p-3 font-mono text-xs dark:border-slate-700 dark:bg-slate-950"
          >
            {JSON.stringify(entry.example, null, 2)}
          </pre>
        </div>
        <Collapsible.Root open={schemaOpen} onOpenChange={setSchemaOpen}>
          <Collapsible.Trigger asChild>
            <button
              type="button"
              className="inline-flex items-center gap-1 rounded font-medium text-indigo-700 focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:outline-none dark:text-indigo-300"
            >
              <ChevronRight aria-hidden="true" className={`size-4 transition-transform ${schemaOpen ? 'rotate-90' : ''}`} />
              JSON Schema of the data
            </button>
          </Collapsible.Trigger>
          <Collapsible.Content>
            <pre
              tabIndex={0}
              aria-label={`JSON Schema of ${entry.type}`}
              className="mt-2 max-h-96 overflow-auto rounded-md border border-slate-200 bg-slate-50 p-3 font-mono text-xs dark:border-slate-700 dark:bg-slate-950"
            >
              {JSON.stringify(entry.schema, null, 2)}
            </pre>
          </Collapsible.Content>
        </Collapsible.Root>
      </CardContent>
    </Card>
  );
}
