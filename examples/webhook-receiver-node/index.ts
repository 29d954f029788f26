/**
 * A webhook receiver on node:http: it verifies each delivery's Standard Webhooks signature with
 * the SDK's `webhooks.verify` against the raw body, answers 200 and prints the event (400 and the
 * reason when the signature does not hold).
 *
 *   AMP_WEBHOOK_SECRET=whsec_... PORT=4242 npx tsx examples/webhook-receiver-node/index.ts
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Amp, WebhookVerificationError } from '@amp/sdk';

const secret = process.env.AMP_WEBHOOK_SECRET;
if (!secret) {
  console.error('Set AMP_WEBHOOK_SECRET to the subscription\u2019s signing secret (whsec_...).');
  process.exit(2);
}
const port = Number(process.env.PORT ?? 4242);
// Verifying needs no credential: the key is only for other calls you may make from here.
const amp = new Amp({ apiKey: process.env.AMP_API_KEY ?? '' }, { baseUrl: process.env.AMP_BASE_URL ?? 'http://localhost:3000' });

const server = createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/hooks') return void res.writeHead(404).end();
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    // The raw bytes, never re-serialized JSON: the signature covers them exactly.
    const raw = Buffer.concat(chunks);
    try {
      const event = amp.webhooks.verify(raw, req.headers, secret);
      console.log(`verified ${event.event} ${event.id} ${JSON.stringify(event.data)}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
      console.log(`rejected ${err.reason}`);
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: err.reason }));
    }
  });
});

server.listen(port, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => server.close(() => process.exit(0)));
