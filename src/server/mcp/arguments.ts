import type { z } from 'zod';
import { invalidRequest } from '../errors';

/** A tool's arguments parsed by `schema`, or 400 `invalid_request` naming each argument that does not fit. */
export function parseArgs<T>(schema: z.ZodType<T>, args: Record<string, unknown> | undefined): T {
  const parsed = schema.safeParse(args ?? {});
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => ({ path: i.path.join('.') || '(root)', message: i.message }));
  throw invalidRequest(`Invalid arguments: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
}
