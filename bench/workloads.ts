// Domain workloads beyond payments: invoice pages at 100,000 invoices, a 15,000-item payout batch,
// and 10,000 webhook deliveries to a local receiver.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import { api, load, startServe, type Served } from './lib.js';

type Record_ = (row: { workload: string; figure: string; baseline: string; ratio: string; target: string; ok: boolean | null }, raw: unknown) => void;

const fmt = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/**
 * Seeds 100,000 invoices by creating one through the API and copying its row in SQL (creating
 * them one by one over HTTP would make the benchmark about seeding), then pages through them.
 */
export async function benchInvoices(served: Served, record: Record_): Promise<void> {
  const token = await served.token();
  const created = await api(served, token, 'POST', '/v2/invoicing/invoices', {
    detail: { currency_code: 'USD' },
    primary_recipients: [{ billing_info: { email_address: 'buyer@example.com' } }],
    items: [{ name: 'Widget', quantity: '2', unit_amount: { currency_code: 'USD', value: '10.00' } }],
  }, { Prefer: 'return=representation' });
  if (created.status !== 201) throw new Error(`invoice create failed: ${created.status} ${JSON.stringify(created.body)}`);
  await served.stop();

  const sqlite = new BetterSqlite3(served.db);
  const columns = (sqlite.prepare("SELECT name FROM pragma_table_info('invoices')").all() as Array<{ name: string }>).map((c) => c.name);
  const copy = columns.map((name) => {
    if (name === 'id') return "'INV2-' || printf('%04d', n) || '-BNCH-' || printf('%06d', n)";
    if (name === 'invoice_number') return "'B' || printf('%07d', n)";
    if (name === 'create_time' || name === 'update_time') return "strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || n || ' seconds')";
    return name;
  });
  const started = performance.now();
  sqlite.exec(`
    WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < 99999)
    INSERT INTO invoices (${columns.join(', ')})
    SELECT ${copy.join(', ')} FROM seq, (SELECT * FROM invoices LIMIT 1);
  `);
  const count = (sqlite.prepare('SELECT count(*) AS c FROM invoices').get() as { c: bigint }).c;
  sqlite.close();
  const seedMs = performance.now() - started;

  const again = await startServe(served.db);
  try {
    const token2 = await again.token();
    const result = await load({
      url: `${again.baseUrl}/v2/invoicing/invoices?page=1&page_size=100`,
      connections: 1,
      durationSeconds: 4,
      headers: { authorization: `Bearer ${token2}` },
      setupRequest: (request) => ({ ...request, path: `/v2/invoicing/invoices?page=${1 + Math.floor(Math.random() * 1000)}&page_size=100` }),
    });
    record({
      workload: `invoices: list page (page_size 100) at ${fmt(Number(count))} invoices`,
      figure: `p50 ${result.p50} ms, p99 ${result.p99} ms, ${fmt(result.requestsPerSecond)} req/s (1 connection, random pages 1..1000)`,
      baseline: `seeded in ${fmt(seedMs)} ms`,
      ratio: '-',
      target: 'p50 < 5 ms',
      ok: result.p50 < 5 && result.non2xx === 0,
    }, { ...result, invoices: Number(count) });
  } finally {
    await again.stop();
  }
  Object.assign(served, { restarted: true });
}

export async function benchPayouts(servedIn: Served, record: Record_): Promise<void> {
  const served = (servedIn as Served & { restarted?: boolean }).restarted ? await startServe() : servedIn;
  try {
    const token = await served.token();
    const topUp = await api(served, token, 'POST', '/_payctl/balances', { currency: 'USD', value: '10000000.00' });
    if (topUp.status >= 300) throw new Error(`top-up failed: ${topUp.status} ${JSON.stringify(topUp.body)}`);
    const items = Array.from({ length: 15_000 }, (_, i) => ({
      recipient_type: 'EMAIL',
      amount: { value: '1.00', currency: 'USD' },
      receiver: `receiver-${i}@example.com`,
      sender_item_id: `item-${i}`,
    }));
    const started = performance.now();
    const created = await api(served, token, 'POST', '/v1/payments/payouts', {
      sender_batch_header: { sender_batch_id: `bench-${randomUUID()}`, email_subject: 'Bench payout' },
      items,
    }, { 'Service-Request-Id': randomUUID() });
    if (created.status !== 201) throw new Error(`payout create failed: ${created.status} ${JSON.stringify(created.body).slice(0, 300)}`);
    const batchId = created.body.batch_header.payout_batch_id as string;
    const createdMs = performance.now() - started;
    let status = '';
    while (performance.now() - started < 120_000) {
      const got = await api(served, token, 'GET', `/v1/payments/payouts/${batchId}?page_size=1`);
      status = got.body.batch_header.batch_status as string;
      if (['SUCCESS', 'DENIED', 'CANCELED'].includes(status)) break;
      await new Promise((done) => setTimeout(done, 50));
    }
    const totalMs = performance.now() - started;
    record({
      workload: 'payouts: 15,000-item batch, create to SUCCESS',
      figure: `${fmt(totalMs / 1000, 2)} s (create answered in ${fmt(createdMs)} ms), final status ${status}`,
      baseline: '-',
      ratio: '-',
      target: '< 10 s',
      ok: status === 'SUCCESS' && totalMs < 10_000,
    }, { totalMs, createdMs, status });
  } finally {
    if (served !== servedIn) await served.stop();
  }
}

export async function benchWebhooks(servedIn: Served, record: Record_): Promise<void> {
  const served = (servedIn as Served & { restarted?: boolean }).restarted ? await startServe() : servedIn;
  const total = 10_000;
  let received = 0;
  let allReceived!: () => void;
  const done = new Promise<void>((resolve) => {
    allReceived = resolve;
  });
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200).end();
      received += 1;
      if (received === total) allReceived();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/`;
  try {
    const token = await served.token();
    const subscribed = await api(served, token, 'POST', '/v1/notifications/webhooks', {
      url: receiverUrl,
      event_types: [{ name: '*' }],
    });
    if (subscribed.status !== 201) throw new Error(`subscribe failed: ${subscribed.status} ${JSON.stringify(subscribed.body)}`);
    const started = performance.now();
    // 10,000 events through the simulate endpoint, 50 at a time.
    const fire = await load({
      url: `${served.baseUrl}/v1/notifications/simulate-event`,
      connections: 50,
      durationSeconds: 60,
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ webhook_id: subscribed.body.id, event_type: 'PAYMENT.CAPTURE.COMPLETED' }),
      amount: total,
    });
    const firedMs = performance.now() - started;
    await Promise.race([done, new Promise((resolve) => setTimeout(resolve, 60_000))]);
    const totalMs = performance.now() - started;
    record({
      workload: `webhooks: ${fmt(total)} events delivered to a local receiver`,
      figure: `${fmt(received)} received in ${fmt(totalMs / 1000, 2)} s = ${fmt(received / (totalMs / 1000))} deliveries/s (events created in ${fmt(firedMs)} ms, non-2xx ${fire.non2xx})`,
      baseline: '-',
      ratio: '-',
      target: '< 15 s',
      ok: received === total && totalMs < 15_000,
    }, { received, totalMs, firedMs });
  } finally {
    receiver.close();
    if (served !== servedIn) await served.stop();
  }
}
