/**
 * Checks the three client configurations beside this file against a running service: reads the
 * MCP server URL and the API key header from each (as Claude Desktop, Cursor and VS Code would,
 * with AMP_API_KEY in place of the key placeholder and AMP_BASE_URL in place of
 * http://localhost:3000), connects with the official MCP client, lists the tools and calls one.
 *
 *   AMP_BASE_URL=http://localhost:3000 AMP_API_KEY=amp_... npx tsx examples/mcp-clients/index.ts
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const baseUrl = (process.env.AMP_BASE_URL ?? 'http://localhost:3000').replace(/\/+$/, '');
const apiKey = process.env.AMP_API_KEY;
if (!apiKey) {
  console.error('Set AMP_API_KEY (and AMP_BASE_URL if the service is not on http://localhost:3000).');
  process.exit(2);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const read = (file: string) => JSON.parse(readFileSync(path.join(here, file), 'utf8'));

interface Remote {
  url: string;
  headers: Record<string, string>;
}

/** `${env:AMP_API_KEY}` (Cursor), `${input:amp-api-key}` (VS Code), `${AMP_API_KEY}` (mcp-remote) are the key. */
const fill = (value: string, env: Record<string, string> = {}) =>
  value
    .replace(/\$\{(?:env:AMP_API_KEY|input:amp-api-key)\}/g, apiKey)
    .replace(/\$\{(\w+)\}/g, (_, name: string) => (name === 'AMP_API_KEY' ? apiKey : (env[name] ?? '')))
    .replace('http://localhost:3000', baseUrl);

/** Claude Desktop starts `mcp-remote <url> --header name:value`: the URL and headers are its arguments. */
function claudeDesktop(): Remote {
  const server = read('claude_desktop_config.json').mcpServers['agent-module-platform'];
  const args: string[] = server.args;
  const headers: Record<string, string> = {};
  args.forEach((arg, i) => {
    if (arg !== '--header') return;
    const [name, ...rest] = args[i + 1]!.split(':');
    headers[name!.trim()] = fill(rest.join(':').trim(), server.env);
  });
  return { url: fill(args.find((a) => /^https?:\/\//.test(a))!), headers };
}

function urlAndHeaders(server: { url: string; headers: Record<string, string> }): Remote {
  return { url: fill(server.url), headers: Object.fromEntries(Object.entries(server.headers).map(([k, v]) => [k, fill(v)])) };
}

const clients: [string, Remote][] = [
  ['Claude Desktop (claude_desktop_config.json)', claudeDesktop()],
  ['Cursor (.cursor/mcp.json)', urlAndHeaders(read('.cursor/mcp.json').mcpServers['agent-module-platform'])],
  ['VS Code (.vscode/mcp.json)', urlAndHeaders(read('.vscode/mcp.json').servers['agent-module-platform'])],
];

let failed = false;
for (const [name, remote] of clients) {
  const client = new Client({ name: 'amp-example-mcp-clients', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(remote.url), { requestInit: { headers: remote.headers } }));
    const { tools } = await client.listTools();
    const call = await client.callTool({ name: 'text__slugify', arguments: { text: `Hello from ${name}` } });
    const text = (call.content as { type: string; text?: string }[]).find((c) => c.type === 'text')?.text;
    if (call.isError) throw new Error(text);
    console.log(`${name}: connected to ${remote.url}, ${tools.length} tools, text__slugify -> ${text}`);
  } catch (err) {
    failed = true;
    console.error(`${name}: ${(err as Error).message}`);
  } finally {
    await client.close();
  }
}
process.exit(failed ? 1 : 0);
