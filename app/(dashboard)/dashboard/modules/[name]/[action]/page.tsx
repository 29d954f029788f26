import type { Metadata } from 'next';
import { PlaygroundView } from '@/components/dashboard/modules/playground';
import { requireSession } from '@/app/_lib/session';
import { WithData } from '@/app/_lib/prefetch';

/** Route segments arrive percent-encoded; a malformed one is kept as it is (the API answers 404). */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

type Params = Promise<{ name: string; action: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const { name, action } = await params;
  return { title: `${decoded(name)}.${decoded(action)} · Playground` };
}

export default async function PlaygroundPage({ params }: { params: Params }) {
  const { name, action } = await params;
  const [module, act] = [decoded(name), decoded(action)];
  await requireSession(`/dashboard/modules/${encodeURIComponent(module)}/${encodeURIComponent(act)}`);
  return (
    <WithData prefetch={({ trpc, queryClient }) => [queryClient.prefetchQuery(trpc.modules.get.queryOptions({ module }))]}>
      <PlaygroundView module={module} action={act} />
    </WithData>
  );
}
