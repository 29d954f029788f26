'use client';

import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { ForDevelopers } from '@/components/ui/for-developers';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs';
import { nodeSnippet, pythonSnippet } from './verify-snippets';

/**
 * How a receiver checks a delivery (Standard Webhooks `webhook-signature`), in Node and Python.
 * `secret.value` only right after the user created or rotated the secret; otherwise the code reads
 * WEBHOOK_SECRET and names the secret by its masked form. Developer details: in a disclosure.
 */
export function VerifySnippet({ secret }: { secret: { value?: string; masked?: string } }) {
  return (
    <ForDevelopers summary="For developers: check the signature" className="grid grid-cols-1">
      <p className="text-sm text-slate-600 dark:text-slate-400">
        Every delivery carries <code>webhook-id</code>, <code>webhook-timestamp</code> and <code>webhook-signature</code> (
        <a className="underline underline-offset-2" href="https://www.standardwebhooks.com/" target="_blank" rel="noreferrer">
          Standard Webhooks
        </a>
        ), and <code>X-Webhook-Signature</code> (hex HMAC-SHA256 of the raw body keyed with the secret). Verify before you trust the body;
        answer 2xx within 10 seconds; deduplicate on the envelope <code>id</code>.
      </p>
      <Tabs defaultValue="node">
        <TabsList aria-label="Language">
          <TabsTrigger value="node">Node.js</TabsTrigger>
          <TabsTrigger value="python">Python</TabsTrigger>
        </TabsList>
        <TabsContent value="node">
          <CodeBlock code={nodeSnippet(secret)} label="Node.js verification code" testId="verify-snippet-node" />
        </TabsContent>
        <TabsContent value="python">
          <CodeBlock code={pythonSnippet(secret)} label="Python verification code" testId="verify-snippet-python" />
        </TabsContent>
      </Tabs>
    </ForDevelopers>
  );
}

/** Code kept as written (lines scroll sideways on narrow screens, never wrapped mid-word), with a copy button. */
function CodeBlock({ code, label, testId }: { code: string; label: string; testId: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="relative">
      <pre
        tabIndex={0}
        aria-label={label}
        data-testid={testId}
        className="overflow-x-auto rounded-md border border-slate-200 bg-slate-50 p-3 pr-20 font-mono text-xs text-slate-900 dark:border-slate-700 dark:bg-slate-950 dark:text-slate-100"
      >
        {code}
      </pre>
      <Button
        type="button"
        size="sm"
        variant="secondary"
        className="absolute top-2 right-2"
        aria-label={`Copy ${label}`}
        onClick={() => void navigator.clipboard?.writeText(code).then(() => setCopied(true))}
      >
        {copied ? 'Copied' : 'Copy'}
      </Button>
      <span className="sr-only" aria-live="polite">
        {copied ? `${label} copied` : ''}
      </span>
    </div>
  );
}
