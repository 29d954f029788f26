import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // server.ts owns the port and the data layer; Next must not bundle these (DESIGN.md §2).
  serverExternalPackages: ['@electric-sql/pglite', 'pg-boss', 'pg', 'ioredis', 'pino', 'drizzle-orm'],
  // `npm run typecheck` runs tsc over the whole project.
  typescript: { ignoreBuildErrors: true },
  poweredByHeader: false,
};

export default nextConfig;
