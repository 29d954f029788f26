import { AgentCard } from '@a2a-js/sdk';
import type { Services } from '../../services';
import { VERSION } from '../../version';
import { definitionHash } from '../../catalog/definition-hash';
import { discoveryDocument, type PublicModule } from '../../discovery/catalog';

type Card = AgentCard;

/** Where the A2A JSON-RPC endpoint answers (src/server/a2a). */
export const A2A_PATH = '/api/a2a';
/** The A2A 0.3 protocol version a 0.3 client reads from the card's top-level `protocolVersion`. */
export const A2A_LEGACY_PROTOCOL_VERSION = '0.3.0';

const apiKey = { schemes: { apiKey: { list: [] } } };
const bearer = { schemes: { bearer: { list: [] } } };

/**
 * The protocol part of the card: the interfaces that answer, capabilities and security. The A2A
 * request handler is built on it (version checks, capabilities); the served card adds the skills.
 *
 * Only A2A protocol bindings are listed: the JSON-RPC endpoint at /api/a2a, once at A2A 1.0 and
 * once at 0.3 (the SDK's compat layer answers 0.3 method names there). REST and MCP are not A2A
 * bindings; the description names them. No streaming and no push notifications: the endpoint
 * answers each message with its task (an execution finished, a workflow run as it stands: polled).
 */
export function a2aProtocolCard(base: string, description = 'Agent Module Platform'): Card {
  const url = `${base}${A2A_PATH}`;
  return {
    name: 'Agent Module Platform',
    description,
    supportedInterfaces: [
      { url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      { url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
    ],
    provider: { url: base, organization: 'Agent Module Platform' },
    version: VERSION,
    documentationUrl: `${base}/api/llms.txt`,
    capabilities: { streaming: false, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {
      apiKey: {
        scheme: {
          $case: 'apiKeySecurityScheme',
          value: { description: 'API key from POST /api/v1/auth/register', location: 'header', name: 'x-api-key' },
        },
      },
      bearer: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: { description: 'OAuth 2.1 access token (JWT) from the identity provider', scheme: 'Bearer', bearerFormat: 'JWT' },
        },
      },
    },
    securityRequirements: [apiKey, bearer],
    defaultInputModes: ['application/json', 'text/plain'],
    defaultOutputModes: ['application/json', 'text/plain'],
    skills: [],
    signatures: [],
  };
}

/** Words whose period ends an abbreviation, not a sentence ("e.g. 2x", "(e.g. quartiles)", "etc. and"). */
const ABBREVIATION = /(?:^|[^A-Za-z])(?:e\.g|i\.e|etc|vs|cf|approx|incl|excl|esp|viz|fig|ca|resp|Mr|Mrs|Ms|Dr|St|Jr|Sr)$/i;

/**
 * The first sentence of a description, without its final period: it ends at a period followed
 * by white space (or the end) that is outside parentheses, brackets, braces and double quotes and
 * does not end an abbreviation such as "e.g.", "i.e." or "etc.". So "Detects the language
 * (e.g. English) of a text. Returns…" gives "Detects the language (e.g. English) of a text", never
 * a cut at "(e.g".
 */
export function firstSentence(text: string): string {
  const closing: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
  const open: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') quoted = !quoted;
    else if (quoted) continue;
    else if (c in closing) open.push(closing[c]!);
    else if (c === open.at(-1)) open.pop();
    else if (c === '.' && open.length === 0 && (i + 1 === text.length || /\s/.test(text[i + 1]!))) {
      const sentence = text.slice(0, i);
      if (!ABBREVIATION.test(sentence)) return sentence.trim();
    }
  }
  return text.trim();
}

/**
 * The A2A AgentCard served at /.well-known/agent.json and agent-card.json: the official SDK's
 * AgentCard type (A2A 1.0, `supportedInterfaces`) in its JSON form, plus the A2A 0.3 top-level
 * fields (`url`, `preferredTransport`, `protocolVersion`, `additionalInterfaces`) so that 0.3
 * clients (`A2AClient.fromCardUrl`) find the same endpoint. Skills are the module categories,
 * with their actions as examples. Rendered once per catalog change, as encoded JSON.
 */
export function agentCard(svc: Services): Promise<Buffer> {
  return discoveryDocument(svc, 'agent-card', (catalog) => JSON.stringify(renderAgentCard(svc.config.publicBaseUrl, catalog)));
}

function renderAgentCard(base: string, catalog: PublicModule[]): unknown {
  const categories = [...new Set(catalog.map((m) => m.module.category))];
  const actions = catalog.reduce((n, m) => n + m.actions.length, 0);
  const description = [
    `Find, install and run ${actions} module actions (text, data, documents, web, media, math, time, security); metered by plan.`,
    `A2A (JSON-RPC 2.0) at ${base}${A2A_PATH}: send a message with a data part {"module", "action", "input"} (or {"tool": "<module>__<action>", "input"}) to run one action; the answer is a completed Task whose artifact holds the output, readable again with tasks/get.`,
    `Workflow runs too: a data part {"workflow_id", "input"} starts a run of one of your workflows (the Task id is the run id); a run waiting for an approval is input-required with the prompt, answered by a message with the run id as taskId and a data part {"decision": "approve" | "reject"}; tasks/cancel cancels it.`,
    `The same actions are served over REST at ${base}/api/v1 (OpenAPI 3.1: ${base}/api/openapi.json) and over MCP (Streamable HTTP) at ${base}/api/mcp.`,
  ].join(' ');
  const protocol = a2aProtocolCard(base, description);
  const card: Card = {
    ...protocol,
    capabilities: { ...protocol.capabilities!, extensions: [definitionHashes(catalog)] },
    skills: categories.map((category) => {
      const entries = catalog.filter((m) => m.module.category === category);
      return {
        id: category,
        name: `${category[0]!.toUpperCase()}${category.slice(1)} modules`,
        description: entries.map((m) => `${m.module.title}: ${m.module.description}`).join(' '),
        tags: [...new Set(entries.flatMap((m) => m.module.tags))].slice(0, 30),
        examples: entries
          .flatMap((m) => m.actions.slice(0, 2).map((a) => `${m.module.name}.${a.name}: ${firstSentence(a.description)}`))
          .slice(0, 6),
        inputModes: ['application/json'],
        outputModes: ['application/json'],
        securityRequirements: [apiKey, bearer],
      };
    }),
  };
  const url = `${base}${A2A_PATH}`;
  const v1 = AgentCard.toJSON(card) as Record<string, unknown> & { securitySchemes: Record<string, Record<string, unknown>> };
  return {
    ...v1,
    // A2A 0.3 fields, beside the 1.0 ones (a "hybrid" card: 1.x clients read supportedInterfaces).
    url,
    preferredTransport: 'JSONRPC',
    protocolVersion: A2A_LEGACY_PROTOCOL_VERSION,
    additionalInterfaces: [{ url, transport: 'JSONRPC' }],
    // Each scheme in both forms: 1.0's wrapper (`apiKeySecurityScheme`) and 0.3's OpenAPI-style
    // fields beside it; each reader ignores the other's. 0.3's requirements are `security`.
    securitySchemes: {
      apiKey: { ...v1.securitySchemes.apiKey, ...LEGACY_SECURITY_SCHEMES.apiKey },
      bearer: { ...v1.securitySchemes.bearer, ...LEGACY_SECURITY_SCHEMES.bearer },
    },
    security: [{ apiKey: [] }, { bearer: [] }],
  };
}

/**
 * Each module's definition hash (src/catalog/definition-hash.ts), so an agent can pin what it
 * read here: an optional extension (a skill is a category, and A2A skills carry no metadata).
 */
export const DEFINITION_HASHES_EXTENSION = 'urn:agent-module-platform:definition-hashes:v1';

function definitionHashes(catalog: PublicModule[]) {
  return {
    uri: DEFINITION_HASHES_EXTENSION,
    description:
      "The definition hash of each module (sha256 over its version, actions, schemas and runtime): name it as `definition_hash` when executing, or pin it in a key's policy, to refuse a call once the module changed.",
    required: false,
    params: { definition_hashes: Object.fromEntries(catalog.map((m) => [m.module.name, definitionHash(m.module, m.actions)])) },
  };
}

/** The card's security schemes as A2A 0.3 (OpenAPI 3) describes them. */
export const LEGACY_SECURITY_SCHEMES = {
  apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'API key from POST /api/v1/auth/register' },
  bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'OAuth 2.1 access token (JWT) from the identity provider' },
};
