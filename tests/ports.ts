import { createServer } from 'node:net';

/** A TCP port free on 127.0.0.1 right now (for a server whose address must be known before it starts, e.g. its PUBLIC_BASE_URL). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
