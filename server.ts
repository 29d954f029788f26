/**
 * Owns the port. The API surface (REST, /api/trpc, discovery) is answered by our own handler;
 * every other path (pages, assets, next-auth) goes to Next's request handler.
 */
import './src/telemetry/start'; // first: tracing, when configured, starts before what it instruments is loaded
import next from 'next';
import { ConfigError, type Config } from './src/config';
import { DataDirInUseError } from './src/db/data-dir-lock';
import type { NodeHandler } from './src/server/http/handler';
import { startServer } from './src/server/http/server';
import { dashboardForwardToken } from './src/server/session';

async function main() {
  const withNext = process.env.AMP_NO_NEXT !== '1';
  let nextHandler: NodeHandler | undefined;
  if (withNext) {
    const app = next({ dev: false, dir: process.cwd() });
    await app.prepare();
    const handle = app.getRequestHandler();
    nextHandler = (req, res) => handle(req, res);
  }
  const running = await startServer({ next: nextHandler });
  if (withNext) Object.assign(process.env, dashboardEnv(running.config, running.port));
  // The handlers are in place before the line that says the server is up: whoever reads it and
  // stops the server at once gets a graceful shutdown, never the signal's default action.
  const shutdown = (signal: string) => {
    running.svc.logger.info({ signal }, 'shutting down');
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  running.svc.logger.info(
    { url: running.config.publicBaseUrl, port: running.port, database: running.svc.database.kind, redis: Boolean(running.svc.redis) },
    'Agent Module Platform listening',
  );
  if (running.config.auth.builtin) {
    // Public by design (as Supabase's anon key): clients send it as `apikey` to /auth/v1/*.
    running.svc.logger.info(
      { auth_url: `${running.config.publicBaseUrl}/auth/v1`, anon_key: running.config.auth.anonKey },
      'built-in identity provider: the anon key (public by design) goes in the apikey header',
    );
  }
}

/**
 * What Next (the dashboard and next-auth) needs, derived from the one parsed configuration
 * (src/config.ts stays the only reader of the operator's environment) and handed over through
 * process.env before the first page request: next-auth's URL and secret, and AMP_DASHBOARD
 * (app/_lib/env.ts). Next's server code reaches the API and the built-in identity provider on
 * loopback, on this process's own port.
 */
function dashboardEnv(config: Config, port: number): Record<string, string> {
  const apiUrl = `http://127.0.0.1:${port}`;
  return {
    NEXTAUTH_URL: config.publicBaseUrl,
    NEXTAUTH_SECRET: config.sessionSecret,
    AMP_DASHBOARD: JSON.stringify({
      apiUrl,
      authUrl: config.auth.builtin ? apiUrl : (config.auth.url ?? apiUrl).replace(/\/+$/, ''),
      authPublicUrl: config.auth.builtin ? config.publicBaseUrl : (config.auth.url ?? config.publicBaseUrl).replace(/\/+$/, ''),
      anonKey: config.auth.anonKey,
      publicBaseUrl: config.publicBaseUrl,
      adminEmails: config.adminEmails,
      mail: config.auth.builtin && Boolean(config.smtpUrl),
      forwardToken: dashboardForwardToken(),
    }),
  };
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError || err instanceof DataDirInUseError) {
    console.error(err.message);
  } else if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    console.error(`PORT ${(err as { port?: number }).port} is in use by another process; stop it or choose another PORT`);
  } else {
    console.error('Failed to start:', err);
  }
  process.exit(1);
});
