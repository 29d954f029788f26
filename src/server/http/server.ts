import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServices } from '../../app';
import { loadConfig, type Config } from '../../config';
import type { Services } from '../../services';
import { createRequestHandler, type NodeHandler } from './handler';

export interface RunningServer {
  url: string;
  port: number;
  server: Server;
  svc: Services;
  config: Config;
  close(): Promise<void>;
}

/** Starts the service on `config.port` (0 = any free port); used by server.ts and the tests. */
export interface StartOptions {
  env?: Record<string, string | undefined>;
  next?: NodeHandler;
  pgliteTemplate?: string;
}

export async function startServer(options: StartOptions = {}): Promise<RunningServer> {
  const config = loadConfig(options.env ?? process.env);
  const svc = await createServices(config, { pgliteTemplate: options.pgliteTemplate });
  const server = createServer(createRequestHandler(svc, options.next));
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    server,
    svc,
    config,
    close: () =>
      (closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await svc.close();
      })()),
  };
}
