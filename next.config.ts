import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // NEXT_DIST_DIR: a build directory of its own (concurrent test runs of different sources); `.next` by default.
  distDir: process.env.NEXT_DIST_DIR || '.next',
  // server.ts owns the port and the data layer; Next must not bundle these.
  serverExternalPackages: ['@electric-sql/pglite', 'pg-boss', 'pg', 'ioredis', 'pino', 'drizzle-orm'],
  // `npm run typecheck` runs tsc over the whole project.
  typescript: { ignoreBuildErrors: true },
  poweredByHeader: false,
  // Turbopack keeps a cache of its work in <distDir>/cache for the next build (a rebuild after a
  // change takes about half the time), which costs a third more on a build from nothing.
  // NEXT_BUILD_CACHE=0 skips it where the build is the last one the directory sees: CI's clean
  // clone and the container image.
  experimental: { turbopackFileSystemCacheForBuild: process.env.NEXT_BUILD_CACHE !== '0' },
  // Where people guess the pages are.
  async redirects() {
    return [
      { source: '/login', destination: '/sign-in', permanent: false },
      { source: '/signup', destination: '/sign-up', permanent: false },
    ];
  },
};

export default nextConfig;
