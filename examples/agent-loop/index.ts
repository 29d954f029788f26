/**
 * An agent loop without a model: arm the agent (the tools it should load), then let a scripted
 * planner pick one tool call at a time, run each through the execute endpoint, feed the output
 * back to the planner, and print the final answer.
 *
 *   AMP_BASE_URL=http://localhost:3000 AMP_API_KEY=amp_... npx tsx examples/agent-loop/index.ts
 */
import { Amp } from '@amp/sdk';

const baseUrl = process.env.AMP_BASE_URL ?? 'http://localhost:3000';
const apiKey = process.env.AMP_API_KEY;
if (!apiKey) {
  console.error('Set AMP_API_KEY (and AMP_BASE_URL if the service is not on http://localhost:3000).');
  process.exit(2);
}

/** The task the agent is given. */
const task = {
  title: 'agents that call tools',
  body: 'An agent reads the tools it was armed with. It calls one at a time. Each answer shapes the next call.',
};

/** A tool as `arm` answers it in the `openai` format. */
interface Tool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}
interface ToolCall {
  tool: string;
  args: Record<string, unknown>;
  why: string;
}
type Memory = Record<string, unknown>;

/**
 * The planner: in a real agent a model chooses the next call from the tools and what it has seen
 * so far. Here each rule fires once, when what it needs is known, in order.
 */
const rules: { tool: string; produces: string; call(m: Memory): ToolCall; keep(output: Record<string, unknown>): unknown }[] = [
  {
    tool: 'text__change_case',
    produces: 'headline',
    call: () => ({ tool: 'text__change_case', args: { text: task.title, to: 'title' }, why: 'a headline in title case' }),
    keep: (o) => o.result,
  },
  {
    tool: 'text__slugify',
    produces: 'slug',
    call: (m) => ({ tool: 'text__slugify', args: { text: m.headline }, why: 'a URL slug for the headline' }),
    keep: (o) => o.slug,
  },
  {
    tool: 'text__word_count',
    produces: 'words',
    call: () => ({ tool: 'text__word_count', args: { text: task.body }, why: 'how long the body is' }),
    keep: (o) => o.words,
  },
  {
    tool: 'math__evaluate',
    produces: 'reading_seconds',
    call: (m) => ({
      tool: 'math__evaluate',
      args: { expression: 'ceil(words / 200 * 60)', variables: { words: m.words } },
      why: 'reading time at 200 words a minute',
    }),
    keep: (o) => o.result,
  },
];

function plan(memory: Memory): ToolCall | { answer: string } {
  const next = rules.find((r) => !(r.produces in memory));
  if (next) return next.call(memory);
  return {
    answer: `"${memory.headline}" at /posts/${memory.slug}: ${memory.words} words, about ${memory.reading_seconds} s to read`,
  };
}

const amp = new Amp({ apiKey }, { baseUrl });

// 1. Install the modules the planner calls (200 when one already is): once a tenant has installed
// modules, arm answers their tools, so an agent installs what it means to use.
const modules = [...new Set(rules.map((r) => r.tool.split('__')[0]!))];
for (const module of modules) await amp.modules.install(module);

// 2. Arm: the tools this key may call, in the format an LLM API takes.
const armed = await amp.arm({ format: 'openai', agent_id: 'example-agent-loop' });
const tools = armed.tools as Tool[];
const byName = new Map(tools.map((t) => [t.function.name, t]));
console.log(`armed: ${tools.length} tools (${String(armed.tool_source)}), plan ${String(armed.plan)}`);
const missing = rules.map((r) => r.tool).filter((name) => !byName.has(name));
if (missing.length > 0) {
  console.error(`the planner needs tools the key was not armed with: ${missing.join(', ')}`);
  process.exit(1);
}

// 3. Loop: plan, dispatch through execute, remember, until the planner answers.
const memory: Memory = {};
for (let step = 1; step <= 10; step++) {
  const next = plan(memory);
  if ('answer' in next) {
    console.log(`final answer: ${next.answer}`);
    process.exit(0);
  }
  const [module, action] = next.tool.split('__') as [string, string];
  const result = await amp.modules.execute(module, { action, input: next.args });
  const rule = rules.find((r) => r.tool === next.tool)!;
  memory[rule.produces] = rule.keep(result.output as Record<string, unknown>);
  console.log(
    `step ${step}: ${next.tool}(${JSON.stringify(next.args)}) -> ${rule.produces} = ${JSON.stringify(memory[rule.produces])}  [${next.why}; ${result.execution_id}, ${result.latency_ms} ms]`,
  );
}
console.error('no answer after 10 steps');
process.exit(1);
