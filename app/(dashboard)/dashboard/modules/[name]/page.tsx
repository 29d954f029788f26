import type { Metadata } from 'next';
import { ModuleView } from '@/components/dashboard/modules/module-view';
import { requireSession } from '@/app/_lib/session';
import { WithData } from '@/app/_lib/prefetch';
import { MODULE_TRUST_HISTORY } from '@/components/dashboard/first-queries';

/** Route segments arrive percent-encoded; a malformed one is kept as it is (the API answers 404). */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

type Params = Promise<{ name: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  return { title: `${decoded((await params).name)} · Modules` };
}

export default async function ModulePage({ params }: { params: Params }) {
  const name = decoded((await params).name);
  await requireSession(`/dashboard/modules/${encodeURIComponent(name)}`);
  return (
    <WithData
      prefetch={({ trpc, queryClient }) => [
        queryClient.prefetchQuery(trpc.modules.get.queryOptions({ module: name })),
        queryClient.prefetchQuery(trpc.trust.get.queryOptions({ name, history_limit: MODULE_TRUST_HISTORY })),
        queryClient.prefetchQuery(trpc.certification.report.queryOptions({ module: name })),
      ]}
    >
      <ModuleView name={name} />
    </WithData>
  );
}
