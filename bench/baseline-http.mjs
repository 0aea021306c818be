// Baseline: a bare node:http server answering a small JSON body (what a framework-free server costs).
import { createServer } from 'node:http';

const body = JSON.stringify({ id: '2GG279541U471931P', status: 'COMPLETED', amount: { currency_code: 'USD', value: '10.00' } });
const server = createServer((request, response) => {
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ base_url: `http://127.0.0.1:${server.address().port}` })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
