'use client';

import { useQuery } from '@tanstack/react-query';
import type { ColumnDef } from '@tanstack/react-table';
import { Play } from 'lucide-react';
import { Link } from '@/components/ui/link';
import { useTRPC } from '@/client/trpc/react';
import { Badge } from '@/components/ui/badge';
import { buttonVariants } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { DataTable } from '@/components/ui/data-table';
import { PageHeader } from '@/components/ui/page-header';
import { SkeletonRows } from '@/components/ui/skeleton';
import { QueryError } from '@/components/dashboard/query-error';
import { DeniedNote, useAccess } from '@/components/dashboard/access';
import { InstallButton } from './install-button';
import { CollapsibleJson, JsonBlock } from './json-block';
import { TrustBadges } from './trust-badges';
import type { RouterOutputs } from '@/client/trpc/types';
import type { ActionItem } from './types';
import { MODULE_TRUST_HISTORY } from '@/components/dashboard/first-queries';

/**
 * The components' extra fields, as GET /api/v1/trust/{name} returns them (src/trust/schema.ts builds
 * each component with a helper whose inferred type keeps only value and weight).
 */
interface TrustComponents {
  certification: { value: number; weight: number; tier: string | null; ran_at: string | null };
  success_rate: { value: number; weight: number; executions: number; succeeded: number; window_days: number };
  latency: { value: number; weight: number; p95_ms: number | null; source: string };
  feedback: { value: number; weight: number; average: number | null; count: number };
}

const COMPONENT_LABELS = {
  certification: 'Certification',
  success_rate: 'Success rate (30 days)',
  latency: 'Latency (p95)',
  feedback: 'Community feedback',
} as const;

/** One module: what it is, its trust and each action with its schemas, examples and a playground link. */
export function ModuleView({ name }: { name: string }) {
  const trpc = useTRPC();
  // One round: the module and its trust details are requested together.
  const mod = useQuery(trpc.modules.get.queryOptions({ module: name }));
  const trust = useQuery(trpc.trust.get.queryOptions({ name, history_limit: MODULE_TRUST_HISTORY }));
  const report = useQuery(trpc.certification.report.queryOptions({ module: name }));
  // A role without modules:install: the button is off, described by the reason beside it (same round).
  const install = useAccess('installModules');

  if (mod.isPending) {
    return (
      <div className="grid gap-6">
        <PageHeader title={name} description="Loading the module…" />
        <SkeletonRows rows={6} label="Loading the module" />
      </div>
    );
  }
  if (mod.isError) {
    return (
      <div className="grid gap-6">
        <PageHeader title={name} />
        <QueryError error={mod.error} retry={() => void mod.refetch()} />
        <Link className="text-sm font-medium text-indigo-700 hover:underline dark:text-indigo-300" href="/dashboard/modules">
          Back to the modules
        </Link>
      </div>
    );
  }
  const m = mod.data;
  return (
    <div className="grid gap-6">
      <nav aria-label="Breadcrumb" className="text-sm">
        <Link className="text-indigo-700 hover:underline dark:text-indigo-300" href="/dashboard/modules">
          Modules
        </Link>{' '}
        / <span aria-current="page">{m.name}</span>
      </nav>
      <PageHeader
        title={m.title}
        description={m.description}
        actions={
          install.allowed === false ? (
            <div className="grid max-w-sm justify-items-start gap-2 sm:justify-items-end">
              <InstallButton module={m} size="default" deniedBy="module-install-denied" />
              <DeniedNote id="module-install-denied" reason={install.reason} />
            </div>
          ) : (
            <InstallButton module={m} size="default" />
          )
        }
      />
      <dl className="grid grid-cols-2 gap-x-6 gap-y-2 text-sm sm:grid-cols-4">
        {[
          [
            'Name',
            <span key="n" className="font-mono">
              {m.name}
            </span>,
          ],
          ['Version', m.version],
          ['Publisher', m.publisher],
          ['Category', m.category],
          ['Runtime', m.runtime],
          ['Visibility', m.visibility],
          ['Installed', m.installed ? 'Yes' : 'No (the first execution installs it)'],
          ['Tags', m.tags.length ? m.tags.join(', ') : 'None'],
        ].map(([label, value]) => (
          <div key={String(label)} className="min-w-0">
            <dt className="text-xs font-medium text-slate-600 dark:text-slate-400">{label}</dt>
            <dd className="break-words">{value}</dd>
          </div>
        ))}
      </dl>

      <TrustCard
        score={m.trust_score}
        tier={m.certification_tier}
        trust={trust.data}
        error={trust.isError ? trust.error : undefined}
        loading={trust.isPending}
      />

      <CertificationCard report={report.data} error={report.isError ? report.error : undefined} loading={report.isPending} />

      <section aria-labelledby="actions-heading" className="grid gap-4">
        <h2 id="actions-heading" className="text-lg font-semibold">
          Actions ({m.actions.length})
        </h2>
        {m.actions.map((a) => (
          <ActionCard key={a.name} module={m.name} action={a} />
        ))}
      </section>
    </div>
  );
}

function TrustCard({
  score,
  tier,
  trust,
  error,
  loading,
}: {
  score: number;
  tier: string;
  trust?: RouterOutputs['trust']['get'];
  error?: unknown;
  loading: boolean;
}) {
  return (
    <Card>
      <CardHeader>
        <CardTitle>Trust</CardTitle>
        <CardDescription>
          The trust score weighs certification, success rate, latency and community feedback (see the{' '}
          <Link className="underline" href="/docs">
            API reference
          </Link>
          ).
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        <TrustBadges score={score} tier={tier} />
        {loading ? <SkeletonRows rows={2} label="Loading the trust details" /> : null}
        {error ? <QueryError error={error} /> : null}
        {trust ? <TrustTable components={trust.components as TrustComponents} /> : null}
      </CardContent>
    </Card>
  );
}

interface TrustRow {
  component: keyof TrustComponents;
  value: number;
  weight: number;
  basedOn: string;
}

const trustColumns: ColumnDef<TrustRow, unknown>[] = [
  {
    accessorKey: 'component',
    header: 'Component',
    enableSorting: false,
    meta: { rowHeader: true },
    cell: ({ row }) => COMPONENT_LABELS[row.original.component],
  },
  { accessorKey: 'value', header: 'Value', enableSorting: false },
  { accessorKey: 'weight', header: 'Weight', enableSorting: false },
  { accessorKey: 'basedOn', header: 'Based on', enableSorting: false },
];

function TrustTable({ components: c }: { components: TrustComponents }) {
  const rows: TrustRow[] = [
    {
      component: 'certification',
      ...c.certification,
      basedOn: c.certification.tier ? `Tier ${c.certification.tier}` : 'Never certified',
    },
    {
      component: 'success_rate',
      ...c.success_rate,
      basedOn: `${c.success_rate.succeeded} of ${c.success_rate.executions} executions succeeded`,
    },
    {
      component: 'latency',
      ...c.latency,
      basedOn: c.latency.p95_ms === null ? 'No data yet' : `p95 ${c.latency.p95_ms} ms (${c.latency.source})`,
    },
    {
      component: 'feedback',
      ...c.feedback,
      basedOn: c.feedback.count
        ? `${c.feedback.average} / 5 from ${c.feedback.count} rating${c.feedback.count === 1 ? '' : 's'}`
        : 'No ratings yet',
    },
  ];
  return (
    <DataTable
      caption="Trust score components"
      columns={trustColumns}
      data={rows}
      getRowId={(r) => r.component}
      testId="trust-components"
    />
  );
}

function CertificationCard({
  report,
  error,
  loading,
}: {
  report?: RouterOutputs['certification']['report'];
  error?: unknown;
  loading: boolean;
}) {
  return (
    <Card>
      <CardHeader>
        <CardTitle>Certification</CardTitle>
        <CardDescription>{report ? report.rule : 'The checks of the latest certification run.'}</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-3">
        {loading ? <SkeletonRows rows={3} label="Loading the certification report" /> : null}
        {error ? <QueryError error={error} /> : null}
        {report ? (
          <>
            <p className="text-sm" data-testid="certification-summary">
              {report.ran_at ? (
                <>
                  Tier <span className="font-semibold">{report.tier}</span> for v{report.version}: {report.checks_passed} of{' '}
                  {report.checks_total} checks passed
                  {report.p95_ms !== null ? `, p95 ${report.p95_ms} ms (budget ${report.latency_budget_ms} ms)` : ''},{' '}
                  {new Date(report.ran_at).toLocaleString()}.
                </>
              ) : (
                'Not certified yet.'
              )}
              {report.pending_run ? ` A run is ${report.pending_run.status} (v${report.pending_run.version}).` : ''}
            </p>
            {report.checks.length ? (
              <ul className="grid gap-1.5 text-sm" aria-label="Certification checks">
                {report.checks.map((c) => (
                  <li key={c.name} className="flex flex-wrap items-baseline gap-2">
                    <Badge tone={c.passed ? 'success' : 'danger'}>{c.passed ? 'Passed' : 'Failed'}</Badge>
                    <span className="font-mono text-xs">{c.name}</span>
                    <span className="min-w-0 text-slate-700 dark:text-slate-300">{c.detail}</span>
                  </li>
                ))}
              </ul>
            ) : null}
          </>
        ) : null}
      </CardContent>
    </Card>
  );
}

function ActionCard({ module, action }: { module: string; action: ActionItem }) {
  return (
    <Card data-testid={`action-${action.name}`}>
      <CardHeader>
        <div className="flex flex-wrap items-start justify-between gap-2">
          <div className="min-w-0">
            <CardTitle as="h3" className="font-mono text-base">
              {action.name}
            </CardTitle>
            <CardDescription>{action.description}</CardDescription>
          </div>
          <Link
            className={buttonVariants({ size: 'sm' })}
            href={`/dashboard/modules/${encodeURIComponent(module)}/${encodeURIComponent(action.name)}`}
          >
            <Play aria-hidden="true" className="size-4" />
            Try {action.name}
          </Link>
        </div>
      </CardHeader>
      <CardContent className="grid gap-3">
        <CollapsibleJson title="Input schema" value={action.input_schema} />
        <CollapsibleJson title="Output schema" value={action.output_schema} />
        {action.examples.length ? (
          <details className="group min-w-0">
            <summary className="cursor-pointer rounded-sm text-sm font-medium focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:outline-none">
              Examples <Badge className="ml-1">{action.examples.length}</Badge>
            </summary>
            <div className="mt-2 grid min-w-0 gap-3">
              {action.examples.map((ex, i) => (
                <div key={i} className="grid gap-2 md:grid-cols-2">
                  <div className="min-w-0">
                    <p className="mb-1 text-xs font-medium text-slate-600 dark:text-slate-400">Input</p>
                    <JsonBlock value={ex.input} label={`Example ${i + 1} input`} />
                  </div>
                  <div className="min-w-0">
                    <p className="mb-1 text-xs font-medium text-slate-600 dark:text-slate-400">Output</p>
                    <JsonBlock value={ex.output} label={`Example ${i + 1} output`} />
                  </div>
                </div>
              ))}
            </div>
          </details>
        ) : null}
      </CardContent>
    </Card>
  );
}
