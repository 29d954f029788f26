import { directoryInput, directoryOutput, searchInput, searchOutput } from '../../catalog/schema';
import { listDirectory, searchCatalog } from '../../catalog/search';
import { apiProcedure, router, skipsChecked } from '../trpc';

export const catalogRouter = router({
  search: apiProcedure('modules:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/catalog/search',
        tags: ['catalog'],
        summary: 'Search actions by keyword',
        description:
          'Ranked full-text search over module names, titles, descriptions, tags and action descriptions. `q` accepts web-search syntax ("phrases", or, -exclude). Exempt from the request limit.',
        errorResponses: { 400: 'Missing or invalid q' },
      },
      rateLimitExempt: true,
    })
    .input(searchInput)
    .output(skipsChecked(searchOutput))
    .query(({ ctx, input }) => searchCatalog(ctx.svc, ctx.principal, input)),

  directory: apiProcedure('modules:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/directory',
        tags: ['catalog'],
        summary: 'Directory of every action',
        description: 'Every action visible to the tenant as `module.action`, paginated, with `total`. Exempt from the request limit.',
        errorResponses: { 400: 'Invalid query' },
      },
      rateLimitExempt: true,
    })
    .input(directoryInput)
    .output(directoryOutput)
    .query(({ ctx, input }) => listDirectory(ctx.svc, ctx.principal, input)),
});
