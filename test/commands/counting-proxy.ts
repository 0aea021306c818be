// A pass-through HTTP proxy for CLI tests that records every request payctl sends ("METHOD /path?query"),
// so a test can count what a command asks the server for. Token requests are left out.

import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CountingProxy {
  url: string;
  /** "METHOD /path" of each request, in order; `withQuery` has the query string too. */
  seen: string[];
  withQuery: string[];
  reset(): void;
  close(): Promise<void>;
}

export async function countingProxy(target: string): Promise<CountingProxy> {
  const seen: string[] = [];
  const withQuery: string[] = [];
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    const path = url.split('?')[0] ?? '/';
    if (path !== '/v1/oauth2/token') {
      seen.push(`${req.method} ${path}`);
      withQuery.push(`${req.method} ${url}`);
    }
    const forward = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    withQuery,
    reset() {
      seen.length = 0;
      withQuery.length = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
