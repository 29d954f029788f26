/**
 * The /docs page's index of endpoints, read from the service's own OpenAPI document (asked over
 * the loopback, like the dashboard's data, once per process: the document changes only with the
 * service). Each operation links to its place in the interactive reference (Scalar's
 * `#tag/<tag>/<METHOD><path>` anchors).
 */
import type { EndpointGroup } from '@/components/docs/endpoint-index';
import { dashboardEnv } from './env';

interface OpenApiDocument {
  tags?: { name: string; description?: string }[];
  paths?: Record<string, Record<string, { summary?: string; tags?: string[]; deprecated?: boolean } | unknown>>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** A tag's anchor as the reference names it (GitHub's heading slug, which our one-word tags need little of). */
const tagSlug = (tag: string) =>
  tag
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

export function endpointGroups(doc: OpenApiDocument): EndpointGroup[] {
  const groups = new Map<string, EndpointGroup>(
    (doc.tags ?? []).map((t) => [t.name, { tag: t.name, description: t.description, operations: [] }]),
  );
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method] as { summary?: string; tags?: string[]; deprecated?: boolean } | undefined;
      if (!op) continue;
      const tag = op.tags?.[0] ?? 'other';
      if (!groups.has(tag)) groups.set(tag, { tag, operations: [] });
      groups.get(tag)!.operations.push({
        method: method.toUpperCase(),
        path,
        summary: op.summary ?? '',
        deprecated: op.deprecated === true,
        href: `#tag/${tagSlug(tag)}/${method.toUpperCase()}${path}`,
      });
    }
  }
  return [...groups.values()].filter((g) => g.operations.length > 0);
}

let cached: Promise<EndpointGroup[]> | undefined;

/** The index, or null when the document could not be read (the page then shows the reference alone). */
export async function endpointIndex(): Promise<EndpointGroup[] | null> {
  cached ??= fetch(`${dashboardEnv().apiUrl}/api/openapi.json`)
    .then((res) => (res.ok ? (res.json() as Promise<OpenApiDocument>) : Promise.reject(new Error(`HTTP ${res.status}`))))
    .then(endpointGroups);
  try {
    return await cached;
  } catch {
    cached = undefined;
    return null;
  }
}
