'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from '@/components/ui/link';
import { useRouter } from 'next/navigation';
import { toast } from 'sonner';
import { useTRPC } from '@/client/trpc/react';
import type { RouterInputs } from '@/client/trpc/types';
import { PageHeader } from '@/components/ui/page-header';
import { SkeletonRows } from '@/components/ui/skeleton';
import { useAccess } from '@/components/dashboard/access';
import { DefinitionEditor } from './definition-editor';
import { definitionOf } from './status';
import { templateText, WORKFLOW_TEMPLATES } from './templates';
import { WorkflowLoadError } from './workflow-missing';

type Definition = RouterInputs['workflows']['create'];

const workflowHref = (id: string) => `/dashboard/workflows/${encodeURIComponent(id)}`;

function Crumbs({ children }: { children: React.ReactNode }) {
  return (
    <nav aria-label="Breadcrumb" className="text-sm [overflow-wrap:anywhere]">
      <Link className="text-indigo-700 hover:underline dark:text-indigo-300" href="/dashboard/workflows">
        Workflows
      </Link>{' '}
      / {children}
    </nav>
  );
}

/** A new workflow from a template (`?template=`), saved with `workflows.create`, then opened. */
export function NewWorkflowView({ templateId }: { templateId?: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const access = useAccess('writeWorkflows');
  const create = useMutation(trpc.workflows.create.mutationOptions());
  const template = WORKFLOW_TEMPLATES.find((t) => t.id === templateId) ?? WORKFLOW_TEMPLATES[0]!;
  return (
    <div className="grid min-w-0 gap-6">
      <Crumbs>
        <span aria-current="page">New</span>
      </Crumbs>
      <PageHeader
        title="New workflow"
        description="Pick a starting point, change it to do what you need, and save. You can start runs from the workflow’s page."
      />
      <DefinitionEditor
        initialText={templateText(template)}
        template={template}
        saveLabel="Create workflow"
        cancelHref="/dashboard/workflows"
        access={access}
        onSave={async (definition) => {
          const created = await create.mutateAsync(definition as Definition);
          await queryClient.invalidateQueries({ queryKey: trpc.workflows.list.queryKey() });
          toast.success(`Workflow “${created.name}” created`);
          router.push(workflowHref(created.id));
        }}
      />
    </div>
  );
}

/** The workflow's definition edited and saved with `workflows.update`: the version goes up by one. */
export function EditWorkflowView({ workflowId }: { workflowId: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const access = useAccess('writeWorkflows');
  const workflow = useQuery(trpc.workflows.get.queryOptions({ id: workflowId }));
  const update = useMutation(trpc.workflows.update.mutationOptions());

  if (workflow.isPending) return <SkeletonRows rows={8} label="Loading the workflow" />;
  if (workflow.isError) return <WorkflowLoadError workflowId={workflowId} error={workflow.error} retry={() => void workflow.refetch()} />;
  const w = workflow.data;
  return (
    <div className="grid min-w-0 gap-6">
      <Crumbs>
        <Link className="text-indigo-700 hover:underline dark:text-indigo-300" href={workflowHref(w.id)}>
          {w.name}
        </Link>{' '}
        / <span aria-current="page">Edit</span>
      </Crumbs>
      <PageHeader
        title={`Edit ${w.name}`}
        description={`This is version ${w.version}; saving makes version ${w.version + 1}. Runs already started keep the version they started with.`}
      />
      <DefinitionEditor
        key={w.version}
        initialText={JSON.stringify(definitionOf(w), null, 2)}
        saveLabel={`Save as version ${w.version + 1}`}
        cancelHref={workflowHref(w.id)}
        access={access}
        onSave={async (definition) => {
          const saved = await update.mutateAsync({ ...(definition as Definition), id: w.id });
          queryClient.setQueryData(trpc.workflows.get.queryKey({ id: w.id }), saved);
          await queryClient.invalidateQueries({ queryKey: trpc.workflows.list.queryKey() });
          toast.success(`Saved as version ${saved.version}`);
          router.push(workflowHref(w.id));
        }}
      />
    </div>
  );
}
