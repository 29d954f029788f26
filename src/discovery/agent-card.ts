import { AgentCard } from '@a2a-js/sdk';
import type { Services } from '../services';
import { VERSION } from '../version';
import { publicCatalog } from './catalog';

type Card = AgentCard;

/**
 * The A2A AgentCard served at /.well-known/agent.json and agent-card.json, built as the
 * official SDK's AgentCard type (A2A 1.0: `supportedInterfaces`, no top-level url) and written
 * in its JSON form. Skills are the module categories.
 */
export async function agentCard(svc: Services): Promise<unknown> {
  const base = svc.config.publicBaseUrl;
  const catalog = await publicCatalog(svc.db);
  const categories = [...new Set(catalog.map((m) => m.module.category))];
  const apiKey = { schemes: { apiKey: { list: [] } } };
  const bearer = { schemes: { bearer: { list: [] } } };
  const card: Card = {
    name: 'Agent Module Platform',
    description: `Find, install and run ${catalog.reduce((n, m) => n + m.actions.length, 0)} module actions (text, data, documents, web, media, math, time, security) through REST, MCP or this card's interfaces; metered by plan.`,
    supportedInterfaces: [
      { url: `${base}/api/v1`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' },
      { url: `${base}/api/mcp`, protocolBinding: 'MCP', tenant: '', protocolVersion: '2025-11-25' },
    ],
    provider: { url: base, organization: 'Agent Module Platform' },
    version: VERSION,
    documentationUrl: `${base}/api/llms.txt`,
    capabilities: { streaming: false, pushNotifications: true, extensions: [], extendedAgentCard: false },
    securitySchemes: {
      apiKey: { scheme: { $case: 'apiKeySecurityScheme', value: { description: 'API key from POST /api/v1/auth/register', location: 'header', name: 'x-api-key' } } },
      bearer: { scheme: { $case: 'httpAuthSecurityScheme', value: { description: 'OAuth 2.1 access token (JWT) from the identity provider', scheme: 'Bearer', bearerFormat: 'JWT' } } },
    },
    securityRequirements: [apiKey, bearer],
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    skills: categories.map((category) => {
      const entries = catalog.filter((m) => m.module.category === category);
      return {
        id: category,
        name: `${category[0]!.toUpperCase()}${category.slice(1)} modules`,
        description: entries.map((m) => `${m.module.title}: ${m.module.description}`).join(' '),
        tags: [...new Set(entries.flatMap((m) => m.module.tags))].slice(0, 30),
        examples: entries.flatMap((m) => m.actions.slice(0, 2).map((a) => `${m.module.name}.${a.name}: ${a.description.split('. ')[0]}`)).slice(0, 6),
        inputModes: ['application/json'],
        outputModes: ['application/json'],
        securityRequirements: [apiKey, bearer],
      };
    }),
    signatures: [],
  };
  return AgentCard.toJSON(card);
}
