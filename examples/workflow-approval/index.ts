/**
 * A workflow with a person in the loop: an action step, an approval step and a final step. The
 * example starts a run, waits until the approval is pending, approves it through the SDK and
 * prints the completed run.
 *
 *   AMP_BASE_URL=http://localhost:3000 AMP_API_KEY=amp_... npx tsx examples/workflow-approval/index.ts
 */
import { Amp, type WorkflowRun } from '@amp/sdk';

const baseUrl = process.env.AMP_BASE_URL ?? 'http://localhost:3000';
const apiKey = process.env.AMP_API_KEY;
if (!apiKey) {
  console.error('Set AMP_API_KEY (and AMP_BASE_URL if the service is not on http://localhost:3000).');
  process.exit(2);
}
const amp = new Amp({ apiKey }, { baseUrl });

const workflow = await amp.workflows.create({
  name: 'publish with approval (example)',
  steps: [
    { id: 'draft', module: 'text', action: 'slugify', input: { text: '{{input.title}}' } },
    {
      id: 'review',
      kind: 'approval',
      depends_on: ['draft'],
      prompt: 'Publish "{{input.title}}" at /posts/{{steps.draft.output.slug}}?',
      timeout: '1h',
    },
    {
      id: 'publish',
      module: 'text',
      action: 'change_case',
      depends_on: ['review'],
      input: { text: '{{steps.draft.output.slug}}', to: 'constant' },
    },
  ],
});
console.log(`workflow ${workflow.id} created (version ${workflow.version})`);

const started = await amp.workflows.run(workflow.id, { input: { title: 'Hello Approvals' } });
console.log(`run ${started.run_id} started (${started.status})`);

/** Polls the run until `done` says so (a run's steps move on in the background). */
async function until(what: string, done: (run: WorkflowRun) => boolean, timeoutMs = 60_000): Promise<WorkflowRun> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await amp.workflows.getRun(workflow.id, started.run_id);
    if (done(run)) return run;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}: the run is ${run.status}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const waiting = await until('the approval', (run) => run.steps.some((s) => s.id === 'review' && s.status === 'waiting'));
const review = waiting.steps.find((s) => s.id === 'review')!;
console.log(`waiting for approval: ${JSON.stringify(review.wait)}`);

await amp.workflows.approveStep(workflow.id, started.run_id, 'review', { comment: 'approved by the example' });
console.log('approved');

const finished = await until('the run to finish', (run) => ['completed', 'failed', 'cancelled'].includes(run.status));
for (const step of finished.steps) console.log(`  ${step.id}: ${step.status} ${JSON.stringify(step.output)}`);
console.log(`run ${finished.run_id} ${finished.status}: ${JSON.stringify(finished.output)}`);

await amp.workflows.delete(workflow.id);
process.exit(finished.status === 'completed' ? 0 : 1);
