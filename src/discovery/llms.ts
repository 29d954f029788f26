import { LATENCY_BUDGET_MS, TIER_RULE } from '../certification/rule';
import type { Services } from '../services';
import { LATENCY_BEST_MS, LATENCY_WORST_MS, NEUTRAL_VALUE, TIER_VALUES, TRUST_WEIGHTS, TRUST_WINDOW_DAYS } from '../trust/score';
import { API_TITLE } from '../version';
import { discoveryDocument, type PublicModule } from './catalog';

/** Categories agents reach for first; the rest go under `## Optional` (llmstxt.org). */
const CORE_CATEGORIES = new Set(['text', 'data', 'documents', 'web', 'validation']);

/**
 * GET /api/llms.txt, per llmstxt.org: H1, summary blockquote, how to authenticate and call, an
 * H2 per module category listing its modules with links to their docs, and `## Optional` for
 * the long tail. Generated from the catalog snapshot, encoded once per catalog change.
 */
export function llmsTxt(svc: Services): Promise<Buffer> {
  return discoveryDocument(svc, 'llms.txt', (catalog) => renderLlmsTxt(svc.config.publicBaseUrl, catalog));
}

const COMPONENT_LABELS: Record<keyof typeof TRUST_WEIGHTS, string> = {
  certification: `the certification tier (${Object.entries(TIER_VALUES)
    .map(([tier, value]) => `${tier} ${value}`)
    .join(', ')})`,
  success_rate: `the ${TRUST_WINDOW_DAYS}-day execution success rate (all tenants)`,
  latency: `the p95 latency (100 at ${LATENCY_BEST_MS} ms or less, 0 at ${LATENCY_WORST_MS} ms or more)`,
  feedback: 'the average community rating (1-5 as 0-100)',
};

const trustFormula = () =>
  Object.entries(TRUST_WEIGHTS)
    .map(([name, weight]) => `${weight} × ${COMPONENT_LABELS[name as keyof typeof TRUST_WEIGHTS]}`)
    .join(' + ');

/**
 * Publisher-written text (a public module's title and description) as inline Markdown: runs of
 * whitespace, line breaks included, become one space, so it cannot start a heading, list item or
 * section of its own; brackets, angle brackets, backticks and backslashes are escaped, so it
 * cannot close the link it sits in, add a link or autolink, or swallow the action list's code spans.
 */
export function inlineMarkdown(text: string): string {
  return text
    .replace(/[\s\p{Cc}\u2028\u2029]+/gu, ' ')
    .trim()
    .replace(/[\\`[\]<>]/g, (c) => `\\${c}`);
}

function renderLlmsTxt(base: string, catalog: PublicModule[]): string {
  const actionCount = catalog.reduce((n, m) => n + m.actions.length, 0);
  const byCategory = new Map<string, typeof catalog>();
  for (const entry of catalog) byCategory.set(entry.module.category, [...(byCategory.get(entry.module.category) ?? []), entry]);

  const section = (category: string, entries: typeof catalog) => [
    `## ${category[0]!.toUpperCase()}${category.slice(1)}`,
    '',
    ...entries.map(
      ({ module: m, actions }) =>
        `- [${inlineMarkdown(m.title)}](${base}/api/v1/modules/${m.name}): ${inlineMarkdown(m.description)} Actions: ${actions.map((a) => `\`${a.name}\``).join(', ')}.`,
    ),
    '',
  ];
  const core = [...byCategory].filter(([c]) => CORE_CATEGORIES.has(c));
  const rest = [...byCategory].filter(([c]) => !CORE_CATEGORIES.has(c));

  return [
    `# ${API_TITLE.replace(/ API$/, '')}`,
    '',
    `> A multi-tenant HTTP API through which software agents find, install and run modules (tools): ${catalog.length} modules with ${actionCount} actions, metered by plan, also served as an MCP endpoint.`,
    '',
    `Register once with \`POST ${base}/api/v1/auth/register\` and a JSON body \`{"agent_name": "...", "owner_email": "..."}\`; the answer holds an API key (\`amp_...\`, shown once). Send it as the \`x-api-key\` header on every other call (or an OAuth bearer token as \`Authorization: Bearer <token>\`).`,
    '',
    `Run an action with \`POST ${base}/api/v1/modules/{module}/execute\` and \`{"action": "...", "input": {...}}\`; the input must match the action's \`input_schema\` (see the module's page). Search with \`GET ${base}/api/v1/catalog/search?q=...\`; list every action with \`GET ${base}/api/v1/directory\`. Errors are JSON \`{error, message, request_id, doc_url}\` (\`doc_url\`: what the code means and what to do, on \`${base}/docs/errors\`); over the rate limit wait the \`Retry-After\` seconds.`,
    '',
    `Multi-step workflows: save a DAG of steps with \`POST ${base}/api/v1/workflows\` (\`{name, steps: [{id, module, action, input, depends_on?, retry?, if?}]}\`, inputs referencing \`{{input.x}}\` and \`{{steps.<id>.output.x}}\`), start a durable run with \`POST ${base}/api/v1/workflows/{id}/runs\` (202 \`{run_id}\`), and watch it with \`GET ${base}/api/v1/workflows/{id}/runs/{run_id}\` (per-step status and outputs).`,
    '',
    `Every module has a certification tier (\`none\` < \`bronze\` < \`silver\` < \`gold\`) and a trust score (0–100), shown in module views. Tiers come from certification runs (examples, generated malformed inputs, p95 latency against a ${LATENCY_BUDGET_MS} ms budget, metadata): ${TIER_RULE} Report: \`GET ${base}/api/v1/certification/{module}/report\`; trust: \`GET ${base}/api/v1/trust/{name}\`.`,
    '',
    `The trust score is ${trustFormula()}, rounded; each component is 0–100 and ${NEUTRAL_VALUE} without data (docs/trust.md). Rate a module your tenant executed with \`POST ${base}/api/v1/trust/{name}/feedback\` and \`{"rating": 1-5, "comment": "..."}\`.`,
    '',
    ...core.flatMap(([c, entries]) => section(c, entries)),
    '## Optional',
    '',
    ...rest.flatMap(([c, entries]) =>
      entries.map(
        ({ module: m }) => `- [${inlineMarkdown(m.title)}](${base}/api/v1/modules/${m.name}) (${c}): ${inlineMarkdown(m.description)}`,
      ),
    ),
    `- [OpenAPI 3.1 description](${base}/api/openapi.json): every endpoint, schema and error.`,
    `- [Authentication OpenAPI 3.1 description](${base}/api/openapi-auth.json): the sign-in endpoints (\`/auth/v1\`) and the OAuth 2.1 authorization server (\`/oauth\`).`,
    `- [Operator OpenAPI 3.1 description](${base}/api/openapi-admin.json): the deployment operator's endpoints (\`/api/v1/admin\`, \`x-admin-token\`).`,
    `- [Workflow definition JSON Schema](${base}/api/schemas/workflow-definition.json): check a workflow before saving it.`,
    `- [Agent card](${base}/.well-known/agent.json): A2A discovery document.`,
    `- [A2A endpoint](${base}/api/a2a): A2A JSON-RPC 2.0 with the same key; a message with a data part \`{"module", "action", "input"}\` runs one action and answers a Task.`,
    `- [MCP endpoint](${base}/api/mcp): JSON-RPC 2.0 over Streamable HTTP with the same key.`,
    '',
  ].join('\n');
}
