/**
 * A benchmark target in its own process, so the load generator does not share its event loop:
 *   tsx bench/target.ts bare <body-file>   a bare node:http handler answering the given bytes
 *   tsx bench/target.ts service            the real service (env decides embedded / PostgreSQL+Redis)
 * Prints `READY <port>` when listening.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServer } from '../src/server/http/server';

const [mode, bodyFile] = process.argv.slice(2);

if (mode === 'bare') {
  const body = readFileSync(bodyFile!);
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => console.log(`READY ${(server.address() as AddressInfo).port}`));
} else {
  const running = await startServer({ env: { ...process.env, PORT: '0', LOG_LEVEL: 'silent' } });
  console.log(`READY ${running.port}`);
}
