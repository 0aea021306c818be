// sendOnce (node:http) against scripted servers on 127.0.0.1: bodies, lengths, cut-off answers,
// stalls, repeated headers, connection reuse, and a process that exits with its socket still open.

import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NetworkError, TimeoutError, UsageError, exitCodeFor } from '../../../src/lib/api/errors.js';
import { sendOnce } from '../../../src/lib/api/transport.js';

interface Seen {
  headers: IncomingMessage['headers'];
  body: Buffer;
  socket: Socket;
}

let server: Server | undefined;

async function serve(handler: (seen: Seen, response: ServerResponse) => void, keepAliveTimeout = 5_000): Promise<{ url: string; seen: Seen[]; connections: () => number }> {
  const seen: Seen[] = [];
  let connections = 0;
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = { headers: request.headers, body: Buffer.concat(chunks), socket: request.socket };
      seen.push(entry);
      handler(entry, response);
    });
  });
  server.keepAliveTimeout = keepAliveTimeout;
  server.on('connection', () => (connections += 1));
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, seen, connections: () => connections };
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
  server = undefined;
});

describe('sendOnce over node:http', () => {
  it('sends a UTF-8 body with its byte length (never chunked) and decodes a UTF-8 answer', async () => {
    const { url, seen } = await serve((_seen, response) => {
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      response.end('\ufeff{"note":"Grüße, 東京 €"}');
    });
    const body = JSON.stringify({ note: 'Crème brûlée – 東京' });
    const answer = await sendOnce(
      { method: 'POST', url: `${url}/v2/x`, headers: { 'Content-Type': 'application/json', 'Content-Length': '1' }, body },
      { timeoutMs: 5_000 },
    );
    expect(answer.status).toBe(200);
    expect(answer.text).toBe('{"note":"Grüße, 東京 €"}');
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    const request = seen[0]!;
    expect(request.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(Buffer.byteLength(body)).toBeGreaterThan(body.length);
    expect(request.headers['transfer-encoding']).toBeUndefined();
    expect(request.headers['accept-encoding']).toBeUndefined();
    expect(request.body.toString('utf8')).toBe(body);
  });

  it('sends no body and no length on a GET; joins a repeated header with ", "', async () => {
    const { url, seen } = await serve((_seen, response) => {
      response.setHeader('link', ['<a>; rel="first"', '<b>; rel="next"']);
      response.writeHead(204);
      response.end();
    });
    const answer = await sendOnce({ method: 'GET', url: `${url}/x?page=2`, headers: { Authorization: 'Bearer t' } }, { timeoutMs: 5_000 });
    expect(answer).toEqual({ status: 204, headers: expect.objectContaining({ link: '<a>; rel="first", <b>; rel="next"' }), text: '' });
    expect(seen[0]!.headers['content-length']).toBeUndefined();
    expect(seen[0]!.headers.authorization).toBe('Bearer t');
  });

  it('reuses one kept-alive connection for requests sent one after another', async () => {
    const { url, connections } = await serve((_seen, response) => response.end('ok'));
    for (let i = 0; i < 3; i++) expect((await sendOnce({ method: 'GET', url, headers: {} }, { timeoutMs: 5_000 })).text).toBe('ok');
    expect(connections()).toBe(1);
  });

  it('treats an answer cut off mid-body as a network error, not a short body', async () => {
    const { url } = await serve((seen, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      // Cut once the part has left (its write callback), not after a guessed time.
      response.write('{"id":"only part', () => seen.socket.destroy());
    });
    const error = await sendOnce({ method: 'GET', url, headers: {} }, { timeoutMs: 5_000 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).message).toMatch(/^could not reach http:\/\/127\.0\.0\.1:\d+: /);
  });

  it('times out when the body stalls after the headers', async () => {
    const { url } = await serve((_seen, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      response.write('{"id":');
    });
    const error = await sendOnce({ method: 'GET', url: `${url}/slow`, headers: {} }, { timeoutMs: 200, requestId: 'rid-1' }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).message).toBe('GET /slow got no answer within 200 ms');
    expect((error as TimeoutError).requestId).toBe('rid-1');
  });

  it('names a refused connection by its code', async () => {
    const { url } = await serve((_seen, response) => response.end());
    await new Promise<void>((done) => server!.close(() => done()));
    server = undefined;
    const error = await sendOnce({ method: 'GET', url, headers: {} }, { timeoutMs: 5_000 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).message).toContain('ECONNREFUSED');
  });

  it('refuses a scheme other than http and https, and a string that is not a URL, as usage errors', async () => {
    const scheme = await sendOnce({ method: 'GET', url: 'ftp://127.0.0.1/x', headers: {} }, { timeoutMs: 1_000 }).catch((caught: unknown) => caught);
    expect(scheme).toBeInstanceOf(UsageError);
    expect((scheme as UsageError).message).toContain('unsupported protocol ftp:');
    const garbage = await sendOnce({ method: 'GET', url: 'not a url', headers: {} }, { timeoutMs: 1_000 }).catch((caught: unknown) => caught);
    expect(garbage).toBeInstanceOf(UsageError);
    expect(exitCodeFor(garbage)).toBe(2);
  });

  it('lets the process exit while the server still holds the kept-alive connection open', async () => {
    // The server would keep the idle connection for 10 minutes: a process held open by it fails the test.
    const { url, connections } = await serve((_seen, response) => response.end('ok'), 600_000);
    const transport = resolve(__dirname, '../../../src/lib/api/transport.ts');
    const script = `import { sendOnce } from ${JSON.stringify(transport)};
const answer = await sendOnce({ method: 'GET', url: ${JSON.stringify(url)}, headers: {} }, { timeoutMs: 5000 });
process.stdout.write(answer.text);`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((done) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        done(null);
      }, 30_000);
      child.once('exit', (exitCode) => {
        clearTimeout(timer);
        done(exitCode);
      });
    });
    expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: 'ok', stderr: '' });
    expect(connections()).toBe(1);
  }, 40_000);
});

const hasOpenssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!hasOpenssl)('sendOnce over node:https', () => {
  it('verifies the certificate: refused when self-signed, answered when its CA is trusted (NODE_EXTRA_CA_CERTS)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payctl-tls-'));
    try {
      const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
      execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-days', '1', '-keyout', key, '-out', cert], { stdio: 'ignore' });
      const secure = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_request, response) => response.end('secure ok'));
      await new Promise<void>((done) => secure.listen(0, '127.0.0.1', done));
      try {
        const url = `https://127.0.0.1:${(secure.address() as AddressInfo).port}/x`;
        const refused = await sendOnce({ method: 'GET', url, headers: {} }, { timeoutMs: 5_000 }).catch((caught: unknown) => caught);
        expect(refused).toBeInstanceOf(NetworkError);
        expect((refused as NetworkError).message).toMatch(/self[- ]signed/i);

        const transport = resolve(__dirname, '../../../src/lib/api/transport.ts');
        const script = `import { sendOnce } from ${JSON.stringify(transport)};
const answer = await sendOnce({ method: 'GET', url: ${JSON.stringify(url)}, headers: {} }, { timeoutMs: 5000 });
process.stdout.write(answer.text);`;
        const out = await new Promise<string>((done, fail) => {
          const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
            env: { ...process.env, NODE_EXTRA_CA_CERTS: cert },
            stdio: ['ignore', 'pipe', 'inherit'],
          });
          let text = '';
          child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
          child.once('exit', (code) => (code === 0 ? done(text) : fail(new Error(`exit ${code}`))));
        });
        expect(out).toBe('secure ok');
      } finally {
        secure.closeAllConnections();
        await new Promise<void>((done) => secure.close(() => done()));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 40_000);
});
