/**
 * Steps that wait, on the run page: an approval step shows its prompt with Approve and Reject;
 * approved with a comment, the run completes and the decision (who, when, the comment) is shown;
 * rejected (after a confirmation), the run fails with the rejection; a step that names other
 * approvers answers with the API's message beside the buttons. A sleep shows until when it
 * sleeps; the workflow page shows its schedule in words, the next run and its event trigger,
 * and the runs' origin. A viewer finds Approve and Reject off, with the reason.
 */
import type { Page } from '@playwright/test';
import { api, check, expect, expectFitsNarrowScreen, newOwner, test, uniqueEmail, watchHydration } from './support';

const APPROVAL_STEPS = [
  { id: 'propose', module: 'text', action: 'slugify', input: { text: '{{input.title}}' } },
  { id: 'ok', kind: 'approval', prompt: 'Publish {{steps.propose.output.slug}}?', timeout: '1h', depends_on: ['propose'] },
  {
    id: 'publish',
    module: 'text',
    action: 'change_case',
    input: { text: '{{steps.propose.output.slug}}', to: 'upper' },
    depends_on: ['ok'],
  },
];

async function createWorkflow(page: Page, apiKey: string, definition: Record<string, unknown>): Promise<string> {
  const created = await api(page, apiKey, 'POST', '/api/v1/workflows', definition);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return String(created.body!.id);
}

async function startRun(page: Page, apiKey: string, workflowId: string, input: Record<string, unknown>): Promise<string> {
  const started = await api(page, apiKey, 'POST', `/api/v1/workflows/${workflowId}/runs`, { input });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  return String(started.body!.run_id);
}

const runPath = (workflowId: string, runId: string) => `/dashboard/workflows/${workflowId}/runs/${runId}`;

test('an approval is approved, another rejected, from the run page', async ({ browser }) => {
  const owner = await newOwner(browser, { agentName: 'Approval Agent' });
  const { page } = owner;
  // The run page's times ("in 59 min") are the same in the server's render and the browser's first.
  const hydration = watchHydration(page);
  const workflowId = await createWorkflow(page, owner.apiKey, { name: 'Publish with approval', steps: APPROVAL_STEPS });

  // Approved with a comment: the run goes on and completes; the decision stays on the step.
  const first = await startRun(page, owner.apiKey, workflowId, { title: 'Hello World' });
  await page.goto(runPath(workflowId, first));
  const approval = page.getByTestId('approval-ok');
  await expect(approval.getByTestId('approval-prompt')).toHaveText('Publish hello-world?');
  await expect(page.getByTestId('step-ok').getByTestId('step-state')).toHaveText('Waiting for approval');
  await expect(page.getByTestId('run-waiting')).toContainText('waiting for approval');
  await expect(page.getByTestId('step-propose').getByTestId('step-does')).toHaveText('Runs text.slugify');
  await expect(page.getByTestId('run-origin')).toHaveText('Started by a call');
  await expectFitsNarrowScreen(page);
  await check(page, 'workflow-approval-waiting');

  await approval.getByLabel('Comment (optional)').fill('Looks good to me');
  await approval.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByText('Approved: the run goes on from ok')).toBeVisible();
  await expect(page.getByText('Completed', { exact: true })).toBeVisible({ timeout: 60_000 });
  const decided = page.getByTestId('step-ok').getByTestId('approval-decision');
  await expect(decided).toContainText(`Approved by ${owner.email}`);
  await expect(decided).toContainText('Looks good to me');
  await expect(page.getByTestId('step-ok').getByTestId('step-does')).toHaveText('Asked for approval: Publish hello-world?');
  await page.getByRole('button', { name: 'Output of publish' }).click();
  await expect(page.getByTestId('step-publish')).toContainText('"result": "HELLO-WORLD"');
  await expectFitsNarrowScreen(page);
  await check(page, 'workflow-approval-completed');

  // Rejected, after the confirmation: the run fails with the rejection.
  const second = await startRun(page, owner.apiKey, workflowId, { title: 'Not Yet' });
  await page.goto(runPath(workflowId, second));
  const again = page.getByTestId('approval-ok');
  await expect(again.getByTestId('approval-prompt')).toHaveText('Publish not-yet?');
  await again.getByLabel('Comment (optional)').fill('Wait for Monday');
  await again.getByRole('button', { name: 'Reject' }).click();
  const confirm = page.getByRole('alertdialog');
  await expect(confirm).toContainText('Wait for Monday');
  await confirm.getByRole('button', { name: 'Reject' }).click();
  await expect(page.getByText('Rejected: the run stops at ok')).toBeVisible();
  await expect(page.getByText('Failed', { exact: true }).first()).toBeVisible();
  await expect(page.getByTestId('run-error')).toContainText('Rejected at step ok');
  await expect(page.getByTestId('run-error')).toContainText(`Rejected by ${owner.email}: Wait for Monday`);
  await expect(page.getByTestId('step-ok').getByTestId('approval-decision')).toContainText(`Rejected by ${owner.email}`);
  await expect(page.getByTestId('step-publish').getByTestId('step-state')).toHaveText('Cancelled');
  await check(page, 'workflow-approval-rejected', { widths: [375] });

  // Replayed from where it stopped: a new run that reuses `propose` and asks again.
  await page.getByRole('button', { name: 'Replay from where it stopped' }).click();
  await expect(page.getByTestId('run-origin')).toContainText('Started as a replay of run');
  await expect(page.getByTestId('approval-ok')).toContainText('Publish');
  await expect(page.getByTestId('step-propose').getByTestId('step-state')).toHaveText(/Succeeded/i);

  // A step that names its approvers: the owner is neither, and the API's message says who is.
  const guarded = await createWorkflow(page, owner.apiKey, {
    name: 'Only admins publish',
    steps: [{ id: 'ok', kind: 'approval', prompt: 'Ship it?', approvers: ['admin', 'lead@example.com'], timeout: '1h' }],
  });
  const third = await startRun(page, owner.apiKey, guarded, {});
  await page.goto(runPath(guarded, third));
  const panel = page.getByTestId('approval-ok');
  await expect(panel).toContainText('Only admin or lead@example.com may decide.');
  await panel.getByRole('button', { name: 'Approve' }).click();
  await expect(panel.getByTestId('approval-refusal')).toHaveText("Only admin, lead@example.com may decide step 'ok'.");
  await expect(page.getByTestId('step-ok').getByTestId('step-state')).toHaveText('Waiting for approval');
  expect(hydration).toEqual([]);
});

test('a sleeping step, and the schedule and event trigger on the workflow page', async ({ browser }) => {
  const owner = await newOwner(browser, { agentName: 'Sleep Agent' });
  const { page } = owner;
  const hydration = watchHydration(page);
  const workflowId = await createWorkflow(page, owner.apiKey, {
    name: 'Nap or hear, then slug',
    steps: [
      { id: 'nap', kind: 'sleep', for: '1h' },
      { id: 'hear', kind: 'wait_for_event', event: 'execution.failed', match: 'event.data.module = "http"', timeout: '2h' },
      { id: 'slug', module: 'text', action: 'slugify', input: { text: 'after the nap' }, depends_on: ['nap', 'hear'] },
    ],
    schedule: { cron: '30 9 * * 1-5', timezone: 'Europe/Paris' },
    on: { event: 'execution.failed', filter: 'event.data.module = "http"' },
    concurrency: { limit: 2, key: '{{input.customer}}' },
  });
  const runId = await startRun(page, owner.apiKey, workflowId, {});
  await page.goto(runPath(workflowId, runId));
  await expect(page.getByTestId('step-nap').getByTestId('step-state')).toHaveText('Sleeping');
  await expect(page.getByTestId('step-nap').getByTestId('step-does')).toHaveText(/^Sleeps until .+ \(in \d+ (min|h)\)$/);
  await expect(page.getByTestId('step-hear').getByTestId('step-state')).toHaveText('Waiting for an event');
  await expect(page.getByTestId('step-hear').getByTestId('step-does')).toHaveText(
    /^Waits for an execution\.failed event matching the condition below \(times out at .+, in \d+ (min|h); then fails\)$/,
  );
  await expect(page.getByTestId('step-hear')).toContainText('event.data.module = "http"');
  await expect(page.getByTestId('step-slug').getByTestId('step-timing')).toHaveText('Not started yet');
  await expectFitsNarrowScreen(page);
  await check(page, 'workflow-run-sleeping');

  await page.goto(`/dashboard/workflows/${workflowId}`);
  const schedule = page.getByTestId('workflow-schedule');
  await expect(schedule).toContainText('At 09:30, Monday through Friday');
  await expect(schedule).toContainText('Europe/Paris');
  await expect(page.getByRole('cell', { name: 'Sleeps for 1h' })).toBeVisible();
  await expect(page.getByTestId('workflow-next-run')).toContainText(/^in .+\(.+ UTC\)$/);
  await expect(page.getByTestId('workflow-on-event')).toContainText(
    'Every execution.failed event that matches this condition starts a run:',
  );
  await expect(page.getByTestId('workflow-on-event')).toContainText('event.data.module = "http"');
  await expect(page.getByTestId('workflow-triggers')).toContainText('with Edit');
  await expect(page.getByTestId('workflow-flow')).toContainText(
    'At most 2 runs in progress at once for each value of {{input.customer}}; later ones wait their turn.',
  );
  await expect(page.getByRole('cell', { name: 'Call', exact: true })).toBeVisible();
  await expectFitsNarrowScreen(page);
  await check(page, 'workflow-triggers');

  // In bulk: the sleeping run is cancelled after a confirmation.
  await page.getByRole('button', { name: 'Cancel active runs' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Cancel runs' }).click();
  await expect(page.getByText('Cancelled 1 run.')).toBeVisible();
  await expect(page.getByRole('cell', { name: 'cancelled' }).first()).toBeVisible();

  // Edit keeps the triggers in the definition it starts from.
  await page.getByRole('link', { name: 'Edit', exact: true }).click();
  const definition = JSON.parse(await page.getByLabel('Definition (JSON)').inputValue()) as Record<
    string,
    { cron?: string; event?: string }
  >;
  expect(definition.schedule?.cron).toBe('30 9 * * 1-5');
  expect(definition.on?.event).toBe('execution.failed');
  expect(definition.concurrency).toEqual({ limit: 2, key: '{{input.customer}}' });
  expect(hydration).toEqual([]);
});

test('a viewer sees Approve and Reject off, with the reason', async ({ browser }) => {
  const owner = await newOwner(browser, { agentName: 'Approval Team' });
  expect((await api(owner.page, owner.apiKey, 'PUT', '/api/v1/billing/plan', { plan: 'pro' })).status).toBe(200);
  const workflowId = await createWorkflow(owner.page, owner.apiKey, {
    name: 'Ask first',
    steps: [{ id: 'ok', kind: 'approval', prompt: 'Go ahead?', timeout: '1h' }],
  });
  const runId = await startRun(owner.page, owner.apiKey, workflowId, {});
  const viewerEmail = uniqueEmail('approval-viewer');
  const invited = await api(owner.page, owner.apiKey, 'POST', '/api/v1/members/invitations', { email: viewerEmail, role: 'viewer' });
  expect(invited.status, JSON.stringify(invited.body)).toBe(201);

  const { page } = await newOwner(browser, { email: viewerEmail, agentName: 'Viewer Own Workspace' });
  await page.goto(new URL(String(invited.body!.accept_url)).pathname);
  await page.getByRole('button', { name: 'Accept invitation' }).click();
  await page.waitForURL((url) => url.pathname === '/dashboard');

  await page.goto(runPath(workflowId, runId));
  const panel = page.getByTestId('approval-ok');
  await expect(panel.getByTestId('approval-prompt')).toHaveText('Go ahead?');
  await expect(panel.getByRole('button', { name: 'Approve' })).toBeDisabled();
  await expect(panel.getByRole('button', { name: 'Reject' })).toBeDisabled();
  await expect(panel.getByTestId('denied-reason')).toHaveText("Viewers can't approve or reject a run's steps — ask the owner or an admin.");
  await expect(panel.getByRole('button', { name: 'Approve' })).toHaveAccessibleDescription(/Viewers can't approve/);
});
