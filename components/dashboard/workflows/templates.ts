/**
 * Definitions to start a new workflow from. Each is a complete definition the API accepts
 * (tests/dashboard/workflow-definition.test.ts checks them against the API's own schema and the
 * built-in modules' action names).
 */
export interface WorkflowTemplate {
  id: string;
  title: string;
  summary: string;
  definition: { name: string; description?: string; steps: Record<string, unknown>[] };
}

export const WORKFLOW_TEMPLATES: WorkflowTemplate[] = [
  {
    id: 'single',
    title: 'One step',
    summary: 'Turns a title into a URL slug.',
    definition: {
      name: 'Slugify a title',
      description: 'Turns the run input’s title into a URL slug.',
      steps: [{ id: 'slug', module: 'text', action: 'slugify', input: { text: '{{input.title}}' } }],
    },
  },
  {
    id: 'fetch',
    title: 'Fetch, parse, transform',
    summary: 'Reads a JSON document from a URL and reshapes one of its fields, retrying the fetch.',
    definition: {
      name: 'Fetch and transform',
      description: 'Fetches a JSON document, parses it and turns its name into a slug.',
      steps: [
        {
          id: 'fetch',
          module: 'http',
          action: 'fetch',
          input: { url: '{{input.url}}' },
          retry: { max_attempts: 3, backoff_ms: 1000, backoff: 'exponential' },
        },
        { id: 'parse', module: 'json', action: 'parse', input: { text: '{{steps.fetch.output.body}}' }, depends_on: ['fetch'] },
        {
          id: 'transform',
          module: 'text',
          action: 'slugify',
          input: { text: '{{steps.parse.output.data.name}}' },
          depends_on: ['parse'],
        },
      ],
    },
  },
  {
    id: 'fanout',
    title: 'Fan out and join',
    summary: 'Three steps run side by side on the same input; a last step merges their results.',
    definition: {
      name: 'Fan out and join',
      description: 'Writes a title three ways at once, then merges the results.',
      steps: [
        { id: 'slug', module: 'text', action: 'slugify', input: { text: '{{input.title}}' } },
        { id: 'snake', module: 'text', action: 'change_case', input: { text: '{{input.title}}', to: 'snake' } },
        { id: 'constant', module: 'text', action: 'change_case', input: { text: '{{input.title}}', to: 'constant' } },
        {
          id: 'join',
          module: 'json',
          action: 'merge',
          input: {
            objects: [
              { slug: '{{steps.slug.output.slug}}' },
              { snake: '{{steps.snake.output.result}}' },
              { constant: '{{steps.constant.output.result}}' },
            ],
          },
          depends_on: ['slug', 'snake', 'constant'],
        },
      ],
    },
  },
];

/** The text the editor starts from for a template. */
export const templateText = (t: WorkflowTemplate) => JSON.stringify(t.definition, null, 2);
