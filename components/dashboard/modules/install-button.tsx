'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import { useTRPC } from '@/client/trpc/react';
import { Button } from '@/components/ui/button';
import { errorMessage } from '@/components/dashboard/query-error';
import type { RouterOutputs } from '@/client/trpc/types';
import type { ModuleItem } from './types';

type ModuleList = RouterOutputs['modules']['list'];

/**
 * Install or uninstall, optimistically: every cached module list and the module's own page show
 * the new state at once and are put back if the API refuses (its message, e.g. the plan's module
 * limit, shown verbatim). The caches are refetched afterwards either way.
 *
 * `deniedBy`: the id of the note saying why the caller's role may not install (modules:install);
 * the button is then off and described by that note. The page asks `useAccess('installModules')`
 * at its top, so `members.me` goes out with the page's other queries.
 */
export function InstallButton({
  module,
  size = 'sm',
  deniedBy,
}: {
  module: Pick<ModuleItem, 'name' | 'installed' | 'title'>;
  size?: 'sm' | 'default';
  deniedBy?: string;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const listKey = trpc.modules.list.queryKey();
  const getKey = trpc.modules.get.queryKey({ module: module.name });

  const setInstalled = (installed: boolean) => {
    queryClient.setQueriesData<ModuleList>({ queryKey: listKey }, (old) =>
      old ? { ...old, data: old.data.map((m) => (m.name === module.name ? { ...m, installed } : m)) } : old,
    );
    queryClient.setQueryData<ModuleItem>(getKey, (old) => (old ? { ...old, installed } : old));
  };

  const options = (installing: boolean) => ({
    onMutate: async () => {
      await queryClient.cancelQueries({ queryKey: listKey });
      await queryClient.cancelQueries({ queryKey: getKey });
      setInstalled(installing);
    },
    onError: (err: unknown) => {
      setInstalled(!installing);
      toast.error(errorMessage(err));
    },
    onSuccess: () => toast.success(installing ? `${module.title} installed` : `${module.title} uninstalled`),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: listKey });
      void queryClient.invalidateQueries({ queryKey: getKey });
    },
  });
  const install = useMutation(trpc.modules.install.mutationOptions(options(true)));
  const uninstall = useMutation(trpc.modules.uninstall.mutationOptions(options(false)));
  const busy = install.isPending || uninstall.isPending;

  return module.installed ? (
    <Button
      size={size}
      variant="secondary"
      loading={busy}
      disabled={Boolean(deniedBy)}
      aria-describedby={deniedBy}
      aria-label={`Uninstall ${module.title}`}
      onClick={() => uninstall.mutate({ module: module.name })}
    >
      Uninstall
    </Button>
  ) : (
    <Button
      size={size}
      loading={busy}
      disabled={Boolean(deniedBy)}
      aria-describedby={deniedBy}
      aria-label={`Install ${module.title}`}
      onClick={() => install.mutate({ module: module.name })}
    >
      Install
    </Button>
  );
}
