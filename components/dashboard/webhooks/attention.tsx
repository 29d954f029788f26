'use client';

import { useQuery } from '@tanstack/react-query';
import { Link } from '@/components/ui/link';
import { useTRPC } from '@/client/trpc/react';
import { Alert } from '@/components/ui/alert';
import { Badge } from '@/components/ui/badge';
import { formatDateTime } from '@/components/dashboard/format';
import { WEBHOOK_AUTO_DISABLE_AFTER } from '@/src/contract/limits';

/**
 * The tenant's webhooks that need attention (GET /api/v1/webhooks/health: disabled, or failing
 * past their alert threshold), one query shared by the navigation badge and the overview banner.
 * Answered on every plan, so it is asked whenever the user has a tenant; refreshed every minute.
 */
export function useWebhookAttention(enabled = true) {
  const trpc = useTRPC();
  return useQuery({ ...trpc.webhooks.health.queryOptions({}), enabled, refetchInterval: 60_000 });
}

/** "2 webhooks disabled, 1 failing": what the badge and the banner say, in words. */
export function attentionSummary(health: { disabled: number; failing: number }): string {
  const parts = [];
  if (health.disabled > 0) parts.push(`${health.disabled} ${health.disabled === 1 ? 'webhook' : 'webhooks'} disabled`);
  if (health.failing > 0)
    parts.push(
      health.disabled > 0 ? `${health.failing} failing` : `${health.failing} ${health.failing === 1 ? 'webhook' : 'webhooks'} failing`,
    );
  return parts.join(', ');
}

/** The navigation's badge beside "Webhooks": the number that need attention, named for screen readers. */
export function WebhookAttentionBadge({ enabled }: { enabled: boolean }) {
  const health = useWebhookAttention(enabled);
  const n = health.data ? health.data.disabled + health.data.failing : 0;
  if (n === 0 || !health.data) return null;
  return (
    <Badge tone={health.data.disabled > 0 ? 'danger' : 'warning'} className="ml-auto" data-testid="nav-webhooks-badge">
      <span aria-hidden="true">{n}</span>
      <span className="sr-only">{attentionSummary(health.data)}</span>
    </Badge>
  );
}

/** The overview's banner while any webhook is disabled or failing: which, since when, and where to fix it. */
export function WebhookAttentionBanner() {
  const health = useWebhookAttention();
  const data = health.data;
  if (!data || data.disabled + data.failing === 0) return null;
  return (
    <Alert variant="error" title={`${attentionSummary(data)}: events are not reaching your receiver`} data-testid="webhooks-attention">
      <ul className="mt-1 grid gap-1">
        {data.subscriptions.map((w) => (
          <li key={w.id} className="flex flex-wrap items-center gap-x-2 gap-y-1">
            <Badge tone={w.status === 'disabled' ? 'danger' : 'warning'}>{w.status === 'disabled' ? 'Disabled' : 'Failing'}</Badge>
            <Link href={`/dashboard/webhooks/${w.id}`} className="font-medium break-all underline underline-offset-2">
              {w.url ?? w.id}
            </Link>
            <span>
              {w.status === 'disabled' && w.disabled_at
                ? `since ${formatDateTime(w.disabled_at)}: new events are not sent. Fix the receiver, then enable it and recover what it missed.`
                : w.failing_since
                  ? `${w.consecutive_failures} failed deliveries in a row since ${formatDateTime(w.failing_since)}; disabled at ${WEBHOOK_AUTO_DISABLE_AFTER}.`
                  : null}
            </span>
          </li>
        ))}
      </ul>
    </Alert>
  );
}
