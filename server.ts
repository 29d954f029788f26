/**
 * Owns the port. The API surface (REST, /api/trpc, discovery) is answered by our own handler;
 * every other path (pages, assets, next-auth) goes to Next's request handler.
 */
import next from 'next';
import { ConfigError } from './src/config';
import type { NodeHandler } from './src/server/http/handler';
import { startServer } from './src/server/http/server';

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
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    console.error(err.message);
  } else {
    console.error('Failed to start:', err);
  }
  process.exit(1);
});
