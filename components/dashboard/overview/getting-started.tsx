'use client';

import { CheckCircle2 } from 'lucide-react';
import { Link } from '@/components/ui/link';
import { useSyncExternalStore } from 'react';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { Copyable } from '@/components/ui/copyable';
import { ForDevelopers } from '@/components/ui/for-developers';
import { WEBHOOKS_REQUIREMENT } from '@/components/dashboard/webhooks/event-kinds';

/** A step's curl command, behind "For developers", with what AMP_API_KEY stands for. */
function CurlSnippet({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <ForDevelopers summary="For developers: the same with curl">
      <p className="text-xs text-slate-600 dark:text-slate-400">
        Set <code className="font-mono">AMP_API_KEY</code> to a key of this tenant (the first was shown when the tenant was created).
      </p>
      <Copyable label={label} value={value} testId={testId} />
    </ForDevelopers>
  );
}

const subscribeNothing = () => () => {};
/** The address the dashboard is served from (the API's base URL), known only in the browser. */
function useOrigin(): string {
  return useSyncExternalStore(
    subscribeNothing,
    () => window.location.origin,
    () => 'https://your-service',
  );
}

interface Step {
  id: string;
  title: string;
  done: boolean;
  body: React.ReactNode;
}

/**
 * The first three things a new tenant does, each with a copyable curl against this service:
 * create a key, run a first action, subscribe a webhook. Steps already done are hidden; when
 * all are, the card is gone.
 */
export function GettingStarted({
  loading,
  hasKey,
  hasExecution,
  hasWebhook,
  webhooksInPlan,
}: {
  loading: boolean;
  hasKey: boolean;
  hasExecution: boolean;
  hasWebhook: boolean;
  /** False when the tenant's plan has no webhooks. */
  webhooksInPlan: boolean;
}) {
  const origin = useOrigin();
  if (loading) return null;
  const steps: Step[] = [
    {
      id: 'key',
      title: 'Create an API key',
      done: hasKey,
      body: (
        <>
          <p>
            Each agent or script gets its own key with only the scopes it needs. Create one on the{' '}
            <Link className="font-medium underline" href="/dashboard/keys">
              API keys
            </Link>{' '}
            page.
          </p>
          <CurlSnippet
            label="curl command to create a key"
            value={`curl -X POST ${origin}/api/v1/keys \\\n  -H "x-api-key: $AMP_API_KEY" -H 'content-type: application/json' \\\n  -d '{"name":"my-agent","scopes":["modules:read","modules:execute"]}'`}
          />
        </>
      ),
    },
    {
      id: 'execute',
      title: 'Run a first action',
      done: hasExecution,
      body: (
        <>
          <p>
            Every module action is one POST. This one turns text into a URL slug; try others in the{' '}
            <Link className="font-medium underline" href="/dashboard/modules">
              modules playground
            </Link>
            .
          </p>
          <CurlSnippet
            label="curl command to run an action"
            testId="getting-started-execute"
            value={`curl -X POST ${origin}/api/v1/modules/text/execute \\\n  -H "x-api-key: $AMP_API_KEY" -H 'content-type: application/json' \\\n  -d '{"action":"slugify","input":{"text":"Hello World"}}'`}
          />
        </>
      ),
    },
    {
      id: 'webhook',
      title: 'Subscribe a webhook',
      done: hasWebhook,
      body: (
        <>
          <p>
            Get each finished execution, quota warning and invoice pushed to your server, signed.{' '}
            {!webhooksInPlan ? (
              <>
                {WEBHOOKS_REQUIREMENT}{' '}
                <Link className="font-medium underline" href="/dashboard/usage#plan">
                  Change plan
                </Link>
                .
              </>
            ) : (
              <>
                Manage them on the{' '}
                <Link className="font-medium underline" href="/dashboard/webhooks">
                  Webhooks
                </Link>{' '}
                page.
              </>
            )}
          </p>
          <CurlSnippet
            label="curl command to subscribe a webhook"
            value={`curl -X POST ${origin}/api/v1/webhooks \\\n  -H "x-api-key: $AMP_API_KEY" -H 'content-type: application/json' \\\n  -d '{"url":"https://example.com/amp-events","events":["execution.completed","execution.failed"]}'`}
          />
        </>
      ),
    },
  ];
  const open = steps.filter((s) => !s.done);
  if (open.length === 0) return null;
  const done = steps.length - open.length;
  return (
    <Card data-testid="getting-started">
      <CardHeader>
        <CardTitle className="text-base">Get started</CardTitle>
        <CardDescription>
          {done} of {steps.length} done.
        </CardDescription>
      </CardHeader>
      <CardContent>
        <ol className="grid gap-5 text-sm">
          {open.map((step) => (
            <li key={step.id} className="grid gap-2" data-testid={`getting-started-${step.id}-step`}>
              <h3 className="flex items-center gap-2 font-semibold">
                <CheckCircle2 aria-hidden="true" className="size-4 text-slate-400" />
                {step.title}
              </h3>
              <div className="grid gap-2 text-slate-700 dark:text-slate-300">{step.body}</div>
            </li>
          ))}
        </ol>
      </CardContent>
    </Card>
  );
}
