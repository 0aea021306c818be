// A webhook receiver on 127.0.0.1 (node:http) that answers 200 and remembers which event ids
// arrived, and how often. It can answer slowly (so that a sender killed meanwhile leaves the
// delivery unanswered: `abandoned`), and wakes waiters at each delivery.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface EventReceiverOptions {
  /** Wait this long before answering each delivery (a slow receiver). */
  answerDelayMs?: number;
}

export interface EventReceiver {
  /** Base URL to subscribe (deliveries add the resource path after it). */
  url: string;
  /** Event id -> deliveries received. */
  readonly received: Map<string, number>;
  /** Event id -> deliveries whose sender closed the connection before the answer (it was killed). */
  readonly abandoned: Map<string, number>;
  /** Deliveries whose body was not an event envelope. */
  readonly malformed: number;
  /** Resolves once `condition` holds (checked now, at every delivery and every answer); rejects after `timeoutMs`. */
  until(condition: () => boolean, timeoutMs: number, what?: string): Promise<void>;
  close(): Promise<void>;
}

export async function startEventReceiver(options: EventReceiverOptions = {}): Promise<EventReceiver> {
  const received = new Map<string, number>();
  const abandoned = new Map<string, number>();
  const waiters = new Set<() => void>();
  let malformed = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      let id: string | undefined;
      try {
        const parsed = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown }).id;
        if (typeof parsed === 'string') id = parsed;
        else malformed += 1;
      } catch {
        malformed += 1;
      }
      if (id !== undefined) received.set(id, (received.get(id) ?? 0) + 1);
      const wakeWaiters = () => {
        for (const wake of [...waiters]) wake();
      };
      wakeWaiters();
      // The sender closing its end before the answer (a FIN on a keep-alive connection that waits
      // for an answer): it went away, killed.
      const socket = request.socket;
      let senderGone = false;
      const gone = () => {
        senderGone = true;
      };
      socket.once('end', gone);
      socket.once('close', gone);
      const answer = () => {
        socket.off('end', gone);
        socket.off('close', gone);
        if ((senderGone || response.destroyed) && id !== undefined) abandoned.set(id, (abandoned.get(id) ?? 0) + 1);
        if (!response.destroyed) response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        wakeWaiters();
      };
      if (options.answerDelayMs) setTimeout(answer, options.answerDelayMs);
      else answer();
    });
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    abandoned,
    get malformed() {
      return malformed;
    },
    until(condition, timeoutMs, what = 'the receiver condition') {
      return new Promise<void>((resolve, reject) => {
        if (condition()) return resolve();
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${what}: not reached in ${timeoutMs} ms (${received.size} events received)`));
        }, timeoutMs);
        const check = () => {
          if (!condition()) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
