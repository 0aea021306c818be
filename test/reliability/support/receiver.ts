// A webhook receiver on 127.0.0.1 (node:http) that answers 200 and remembers which event ids
// arrived, and how often.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface EventReceiver {
  /** Base URL to subscribe (deliveries add the resource path after it). */
  url: string;
  /** Event id -> deliveries received. */
  readonly received: Map<string, number>;
  /** Deliveries whose body was not an event envelope. */
  readonly malformed: number;
  close(): Promise<void>;
}

export async function startEventReceiver(): Promise<EventReceiver> {
  const received = new Map<string, number>();
  let malformed = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        const id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown }).id;
        if (typeof id === 'string') received.set(id, (received.get(id) ?? 0) + 1);
        else malformed += 1;
      } catch {
        malformed += 1;
      }
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    get malformed() {
      return malformed;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
