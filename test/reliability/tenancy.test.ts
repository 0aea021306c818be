// Other tenants: every route that names a resource, called by a second merchant or by a platform
// without consent, gets nothing of the resource and changes nothing. Read-only fields sent in
// create and update requests are ignored or refused, never stored.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteInfo } from '../../src/server/app.js';
import { startTestServer, type Merchant } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { changedTables, errorShapeProblem, send, snapshot, type Answer, type Snapshot } from './fixtures/http.js';
import { Receiver, Resources, settle } from './fixtures/resources.js';
import { fixtureFor, routeKey, wireRequest, type ValidRequest } from './fixtures/routes.js';

const t = await startTestServer({ memory: true, config: { jobIntervalMs: 3_600_000 } });
const receiver = await Receiver.start();
const routes = t.server.routes;
const owner = t.merchant;
let other: Merchant;
let platform: Merchant;
let resources: Resources;
const valid = new Map<string, ValidRequest>();
const figures = { requests: 0, byStatus: new Map<number, number>(), routes: 0, readOnly: [] as string[] };

afterAll(async () => {
  await t.close();
  await receiver.close();
  const statuses = [...figures.byStatus].sort(([a], [b]) => a - b).map(([status, n]) => `${status}: ${n}`).join(', ');
  console.log(`other tenants: ${figures.routes} routes, ${figures.requests} requests as another merchant or a platform without consent; answers ${statuses}`);
  console.log(`read-only fields: ${figures.readOnly.join('; ')}`);
});

beforeAll(async () => {
  other = await t.createMerchant();
  platform = await t.createMerchant();
  resources = new Resources(t, owner, receiver);
  for (const route of routes) valid.set(routeKey(route), await fixtureFor(route).build(resources));
  await quiet();
}, 120_000);

async function quiet(): Promise<void> {
  await settle(t);
}

/** The rows of one account, table by table (what another tenant must never change). */
async function accountRows(accountId: string): Promise<Snapshot> {
  const all = await snapshot(t.server.db);
  const { sql } = await import('kysely');
  const scoped: Snapshot = {};
  for (const name of Object.keys(all)) {
    const columns = await sql<{ name: string }>`SELECT name FROM pragma_table_info(${name})`.execute(t.server.db);
    const names = columns.rows.map((column) => column.name);
    const key = names.includes('account_id') ? 'account_id' : name === 'accounts' ? 'id' : name === 'consents' ? 'payer_id' : undefined;
    if (!key) continue;
    const rows = await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(name)} WHERE ${sql.ref(key)} = ${accountId}`.execute(t.server.db);
    const text = rows.rows.map((row) => JSON.stringify(row, (_k, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value))).sort().join('\n');
    scoped[name] = { rows: rows.rows.length, digest: text };
  }
  return scoped;
}

/** A's ids and identity that the answer must not show (ids the caller itself sent are left out: errors may echo them). */
function leaks(answer: Answer, sent: string): string[] {
  const markers = new Set([...resources.ids, owner.payer_id, owner.email]);
  return [...markers].filter((marker) => marker.length >= 6 && !sent.includes(marker) && answer.text.includes(marker));
}

function assertion(clientId: string, payerId: string): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none' })}.${part({ iss: clientId, payer_id: payerId })}.`;
}

const record = (answer: Answer) => {
  figures.requests += 1;
  figures.byStatus.set(answer.status, (figures.byStatus.get(answer.status) ?? 0) + 1);
};

const tenantRoutes = routes.filter((route) => {
  const expectation = fixtureFor(route).otherTenant;
  return typeof expectation === 'number' || expectation === 'own';
});

describe('another merchant and a platform without consent', () => {
  it('covers every bearer route; the rest say why not', () => {
    const skipped = routes.filter((route) => !tenantRoutes.includes(route)).map((route) => [routeKey(route), fixtureFor(route).otherTenant]);
    for (const [, reason] of skipped) expect((reason as { skip: string }).skip.length).toBeGreaterThan(10);
    const bearer = routes.filter((route) => route.auth === 'bearer' || route.auth === 'bearer-or-admin');
    expect(bearer.filter((route) => !tenantRoutes.includes(route)).map(routeKey)).toEqual([]);
    expect(tenantRoutes.filter((route) => route.url.includes(':')).length).toBeGreaterThan(45);
  });

  it.each(tenantRoutes.map((route) => [routeKey(route), route] as const))('%s', async (key, route: RouteInfo) => {
    figures.routes += 1;
    const fixture = fixtureFor(route);
    const request = valid.get(key) as ValidRequest;
    const ownerBefore = await accountRows(owner.payer_id);
    const sent = JSON.stringify(request);

    // Another merchant's token.
    const before = await snapshot(t.server.db);
    const wire = wireRequest(route, request, { token: other.token, adminKey: '', clientId: '', clientSecret: '' });
    const asOther = await send(t.url, { method: route.method, ...wire });
    record(asOther);
    expect(leaks(asOther, sent), asOther.text.slice(0, 300)).toEqual([]);
    if (typeof fixture.otherTenant === 'number') {
      expect(asOther.status, asOther.text.slice(0, 300)).toBe(fixture.otherTenant);
      if (asOther.status >= 400) expect(errorShapeProblem(asOther, 'service')).toBeUndefined();
      expect(changedTables(before, await snapshot(t.server.db)).filter((table) => !table.startsWith('webhook_dispatch_cursor'))).toEqual([]);
    } else {
      expect(asOther.status, asOther.text.slice(0, 300)).toBeLessThan(500);
    }

    // A platform app naming the merchant in an assertion, without the merchant's consent.
    const beforePlatform = await snapshot(t.server.db);
    const platformWire = wireRequest(route, request, { token: platform.token, adminKey: '', clientId: '', clientSecret: '' });
    const asPlatform = await send(t.url, {
      method: route.method,
      ...platformWire,
      headers: { ...platformWire.headers, 'service-auth-assertion': assertion(platform.client_id, owner.payer_id) },
    });
    record(asPlatform);
    expect(asPlatform.status, asPlatform.text.slice(0, 300)).toBe(403);
    // The dispute operations name a failed permission check AUTHORIZATION_ERROR (spec 5.5), the others NOT_AUTHORIZED.
    const refusal = route.url.startsWith('/v1/customer/disputes') ? 'AUTHORIZATION_ERROR' : 'NOT_AUTHORIZED';
    expect(asPlatform.body).toMatchObject({ name: refusal, details: [{ issue: 'PERMISSION_DENIED', location: 'header' }] });
    expect(leaks(asPlatform, sent)).toEqual([]);
    expect(changedTables(beforePlatform, await snapshot(t.server.db)).filter((table) => !table.startsWith('webhook_dispatch_cursor'))).toEqual([]);

    expect(changedTables(ownerBefore, await accountRows(owner.payer_id))).toEqual([]);
    if (fixture.otherTenant === 'own') await quiet();
  });

  it('the same assertion works once the merchant consents (so the refusals above are about consent)', async () => {
    const consent = await send(t.url, {
      method: 'POST',
      target: '/_payctl/consents',
      headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ platform_client_id: platform.client_id, payer_id: owner.payer_id }),
    });
    expect(consent.status).toBe(201);
    const authId = await resources.authorization();
    const read = await send(t.url, {
      method: 'GET',
      target: `/v2/payments/authorizations/${authId}`,
      headers: { authorization: `Bearer ${platform.token}`, 'service-auth-assertion': assertion(platform.client_id, owner.payer_id) },
    });
    expect(read.status).toBe(200);
    expect((read.body as { id: string }).id).toBe(authId);
    // Another app may not reuse the platform's assertion.
    const borrowed = await send(t.url, {
      method: 'GET',
      target: `/v2/payments/authorizations/${authId}`,
      headers: { authorization: `Bearer ${other.token}`, 'service-auth-assertion': assertion(platform.client_id, owner.payer_id) },
    });
    expect(borrowed.status).toBe(401);
    expect(leaks(borrowed, authId)).toEqual([]);
  });
});

describe('references to another merchant inside a body', () => {
  it("resending one of its own events to the merchant's webhook, or simulating to it, is RESOURCE_NOT_FOUND and delivers nothing", async () => {
    const otherResources = new Resources(t, other, receiver);
    const otherEvent = await otherResources.event();
    const webhookId = await resources.webhook();
    await quiet();
    const before = await snapshot(t.server.db);
    const seen = receiver.seen.length;
    const headers = { authorization: `Bearer ${other.token}`, 'content-type': 'application/json' };
    const resend = await send(t.url, { method: 'POST', target: `/v1/notifications/webhooks-events/${otherEvent}/resend`, headers, body: JSON.stringify({ webhook_ids: [webhookId] }) });
    expect(resend.status).toBe(404);
    const simulate = await send(t.url, { method: 'POST', target: '/v1/notifications/simulate-event', headers, body: JSON.stringify({ webhook_id: webhookId, event_type: 'PAYMENT.CAPTURE.COMPLETED' }) });
    expect(simulate.status).toBe(404);
    // Nothing written: a resend or a simulation is a delivery row its request writes, so none will
    // ever be attempted.
    expect(changedTables(before, await snapshot(t.server.db))).toEqual([]);
    // The control: the owner's own simulation to the same webhook arrives, and is the only request
    // the receiver got since.
    const own = await send(t.url, {
      method: 'POST',
      target: '/v1/notifications/simulate-event',
      headers: { ...headers, authorization: `Bearer ${owner.token}` },
      body: JSON.stringify({ webhook_id: webhookId, event_type: 'PAYMENT.CAPTURE.COMPLETED' }),
    });
    expect(own.status).toBe(202);
    await waitFor(() => receiver.seen.length > seen, { timeoutMs: 10_000, what: "the owner's simulated event at the receiver" });
    expect(receiver.seen.length).toBe(seen + 1);
  });

  it("an invoice naming the merchant's template id gets none of the template's content", async () => {
    const template = await send(t.url, {
      method: 'POST',
      target: '/v2/invoicing/templates',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Private terms', template_info: { detail: { currency_code: 'EUR', note: 'OWNER-ONLY-NOTE', terms_and_conditions: 'OWNER-ONLY-TERMS' } } }),
    });
    expect(template.status).toBe(201);
    const invoice = await send(t.url, {
      method: 'POST',
      target: '/v2/invoicing/invoices',
      headers: { authorization: `Bearer ${other.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ detail: { currency_code: 'USD' }, configuration: { template_id: (template.body as { id: string }).id } }),
    });
    expect(invoice.status).toBeLessThan(500);
    expect(invoice.text).not.toContain('OWNER-ONLY');
    expect(invoice.text).not.toContain('EUR');
  });
});

describe('read-only fields in create and update requests are ignored or refused, never stored', () => {
  const FAKE_TIME = '2001-02-03T04:05:06Z';
  const usd = (value: string) => ({ currency_code: 'USD', value });

  async function call(method: string, target: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    return send(t.url, {
      method,
      target,
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json', prefer: 'return=representation', ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  }

  /** Sends `body`: a refusal must be a 4xx that wrote nothing; an acceptance is checked by reading back. */
  async function ignoredOrRefused(method: string, target: string, body: unknown, readBack: (answer: Answer) => Promise<void>): Promise<'ignored' | 'refused'> {
    await quiet();
    const before = await snapshot(t.server.db);
    const answer = await call(method, target, body);
    expect(answer.status, answer.text.slice(0, 300)).toBeLessThan(500);
    if (answer.status >= 400) {
      expect(errorShapeProblem(answer, 'service')).toBeUndefined();
      expect(changedTables(before, await snapshot(t.server.db)).filter((table) => !table.startsWith('webhook_dispatch_cursor'))).toEqual([]);
      figures.readOnly.push(`${method} ${target.split('/').slice(0, 4).join('/')} refused (${answer.status})`);
      return 'refused';
    }
    expect(answer.text).not.toContain('FAKE');
    expect(answer.text).not.toContain(FAKE_TIME);
    await readBack(answer);
    figures.readOnly.push(`${method} ${target.split('/').slice(0, 4).join('/')} ignored`);
    return 'ignored';
  }

  const read = async (target: string) => {
    const answer = await call('GET', target);
    expect(answer.status, answer.text.slice(0, 300)).toBe(200);
    expect(answer.text).not.toContain('FAKE');
    expect(answer.text).not.toContain(FAKE_TIME);
    return answer.body as any;
  };

  it('orders: id, status, times, links and payments', async () => {
    const unit = { amount: usd('20.00'), payments: { captures: [{ id: 'FAKECAPTURE1', status: 'COMPLETED', amount: usd('20.00') }] } };
    await ignoredOrRefused(
      'POST',
      '/v2/checkout/orders',
      { intent: 'CAPTURE', purchase_units: [unit], id: 'FAKEORDER1', status: 'COMPLETED', create_time: FAKE_TIME, update_time: FAKE_TIME, links: [{ href: 'http://FAKE', rel: 'approve' }] },
      async (answer) => {
        const order = await read(`/v2/checkout/orders/${(answer.body as { id: string }).id}`);
        expect(['CREATED', 'PAYER_ACTION_REQUIRED']).toContain(order.status);
        expect(order.purchase_units[0].payments).toBeUndefined();
      },
    );
  });

  it('captures: id, status, time and the fee breakdown the server computes', async () => {
    const authId = await resources.spareAuthorization('readOnlyCapture');
    await ignoredOrRefused(
      'POST',
      `/v2/payments/authorizations/${authId}/capture`,
      {
        amount: usd('10.00'),
        id: 'FAKECAPTURE2',
        status: 'REFUNDED',
        create_time: FAKE_TIME,
        seller_receivable_breakdown: { gross_amount: usd('10.00'), paypal_fee: usd('0.00'), net_amount: usd('10.00') },
      },
      async (answer) => {
        const capture = await read(`/v2/payments/captures/${(answer.body as { id: string }).id}`);
        expect(capture.status).toBe('COMPLETED');
        const breakdown = capture.seller_receivable_breakdown;
        expect(breakdown.gross_amount.value).toBe('10.00');
        expect(breakdown.paypal_fee.value).not.toBe('0.00');
        const authorization = await read(`/v2/payments/authorizations/${authId}`);
        expect(authorization.status).toBe('PARTIALLY_CAPTURED');
      },
    );
  });

  it('refunds: id, status, time and the refunded totals', async () => {
    const captureId = await resources.spareCapture('readOnlyRefund');
    await ignoredOrRefused(
      'POST',
      `/v2/payments/captures/${captureId}/refund`,
      {
        amount: usd('1.00'),
        id: 'FAKEREFUND1',
        status: 'FAILED',
        create_time: FAKE_TIME,
        seller_payable_breakdown: { gross_amount: usd('1.00'), paypal_fee: usd('0.50'), net_amount: usd('0.50'), total_refunded_amount: usd('999.00') },
      },
      async (answer) => {
        const refund = await read(`/v2/payments/refunds/${(answer.body as { id: string }).id}`);
        expect(refund.status).toBe('COMPLETED');
        expect(refund.amount.value).toBe('1.00');
        expect(refund.seller_payable_breakdown.total_refunded_amount?.value ?? '1.00').toBe('1.00');
        const capture = await read(`/v2/payments/captures/${captureId}`);
        expect(capture.status).toBe('PARTIALLY_REFUNDED');
      },
    );
  });

  const invoiceReadOnly = () => {
    const body = Resources.invoiceBody();
    return {
      ...body,
      id: 'INV2-FAKE',
      status: 'PAID',
      detail: { ...body.detail, metadata: { create_time: FAKE_TIME, last_update_time: FAKE_TIME, created_by_flow: 'FAKE' } },
      amount: { currency_code: 'USD', value: '999.99', breakdown: { item_total: usd('999.99') } },
      due_amount: usd('0.00'),
      gratuity: usd('5.00'),
      payments: { paid_amount: usd('21.65'), transactions: [{ payment_id: 'FAKEPAY', method: 'CASH', amount: usd('21.65') }] },
      refunds: { refund_amount: usd('1.00'), transactions: [{ refund_id: 'FAKEREF', method: 'CASH', amount: usd('1.00') }] },
      links: [{ href: 'http://FAKE', rel: 'self' }],
    };
  };
  const expectComputedInvoice = (invoice: any) => {
    expect(invoice.status).toBe('DRAFT');
    // 2 x 10.00 plus 8.25% tax: the server's total, whatever the request said.
    expect(invoice.amount.value).toBe('21.65');
    expect(invoice.due_amount?.value ?? invoice.amount.value).toBe('21.65');
    expect(invoice.payments?.transactions ?? []).toEqual([]);
    expect(invoice.refunds?.transactions ?? []).toEqual([]);
    expect(invoice.detail.metadata.create_time).not.toBe(FAKE_TIME);
  };

  it('invoices (create): id, status, metadata, amount, due amount, payments, refunds', async () => {
    await ignoredOrRefused('POST', '/v2/invoicing/invoices', invoiceReadOnly(), async (answer) => {
      expectComputedInvoice(await read(`/v2/invoicing/invoices/${(answer.body as { id: string }).id}`));
    });
  });

  it('invoices (replace): the same fields on PUT', async () => {
    const id = await resources.draftInvoice('readOnlyReplace');
    await ignoredOrRefused('PUT', `/v2/invoicing/invoices/${id}`, invoiceReadOnly(), async () => {
      const invoice = await read(`/v2/invoicing/invoices/${id}`);
      expect(invoice.id).toBe(id);
      expectComputedInvoice(invoice);
    });
  });

  it('templates: id, standard_template and links, on create and replace', async () => {
    const fields = { id: 'TEMP-FAKE', standard_template: true, links: [{ href: 'http://FAKE', rel: 'self' }] };
    let created = '';
    await ignoredOrRefused('POST', '/v2/invoicing/templates', { name: `Read-only ${Date.now()}`, ...fields }, async (answer) => {
      created = (answer.body as { id: string }).id;
      expect((await read(`/v2/invoicing/templates/${created}`)).standard_template).toBe(false);
    });
    const id = created || (await resources.template());
    await ignoredOrRefused('PUT', `/v2/invoicing/templates/${id}`, { name: `Read-only again ${Date.now()}`, ...fields }, async () => {
      const template = await read(`/v2/invoicing/templates/${id}`);
      expect(template.id).toBe(id);
      expect(template.standard_template).toBe(false);
    });
  });

  it('payouts: batch id, batch_status, item ids, item status and fees', async () => {
    await ignoredOrRefused(
      'POST',
      '/v1/payments/payouts',
      {
        sender_batch_header: { sender_batch_id: `readonly-${Date.now()}`, recipient_type: 'EMAIL' },
        batch_header: { payout_batch_id: 'FAKEBATCH', batch_status: 'SUCCESS', time_completed: FAKE_TIME, amount: { currency: 'USD', value: '0.01' } },
        items: [
          {
            amount: { currency: 'USD', value: '1.00' },
            receiver: 'readonly@example.com',
            payout_item_id: 'FAKEITEM',
            transaction_id: 'FAKETX',
            transaction_status: 'SUCCESS',
            payout_item_fee: { currency: 'USD', value: '0.00' },
            time_processed: FAKE_TIME,
          },
        ],
      },
      async (answer) => {
        const batch = await read(`/v1/payments/payouts/${(answer.body as any).batch_header.payout_batch_id}`);
        expect(['PENDING', 'PROCESSING']).toContain(batch.batch_header.batch_status);
        expect(batch.batch_header.amount?.value ?? '1.00').toBe('1.00');
        expect(batch.items[0].transaction_status).not.toBe('SUCCESS');
      },
    );
  });

  it('webhooks: id, links and event type descriptions on create; /id on PATCH', async () => {
    let created = '';
    await ignoredOrRefused(
      'POST',
      '/v1/notifications/webhooks',
      {
        url: resources.webhookUrl(),
        event_types: [{ name: 'PAYMENT.CAPTURE.COMPLETED', description: 'FAKE description', status: 'FAKE' }],
        id: 'WH-FAKE',
        links: [{ href: 'http://FAKE', rel: 'self' }],
      },
      async (answer) => {
        created = (answer.body as { id: string }).id;
        await read(`/v1/notifications/webhooks/${created}`);
      },
    );
    const id = created || (await resources.webhook());
    await ignoredOrRefused('PATCH', `/v1/notifications/webhooks/${id}`, [{ op: 'replace', path: '/id', value: 'WH-FAKE' }], async () => {
      expect((await read(`/v1/notifications/webhooks/${id}`)).id).toBe(id);
    });
  });

  it('disputes opened on the control plane: id, status, stage, outcome, amount', async () => {
    const captureId = await resources.spareCapture('readOnlyDispute');
    await ignoredOrRefused(
      'POST',
      '/_payctl/disputes',
      {
        disputed_transaction_id: captureId,
        reason: 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED',
        amount: usd('10.00'),
        dispute_id: 'PP-D-FAKE',
        status: 'RESOLVED',
        dispute_life_cycle_stage: 'ARBITRATION',
        create_time: FAKE_TIME,
        dispute_outcome: { outcome_code: 'RESOLVED_SELLER_FAVOUR' },
        dispute_amount: usd('999.00'),
      },
      async (answer) => {
        const dispute = await read(`/v1/customer/disputes/${(answer.body as { dispute_id: string }).dispute_id}`);
        expect(dispute.status).not.toBe('RESOLVED');
        expect(dispute.dispute_life_cycle_stage).toBe('INQUIRY');
        expect(dispute.dispute_amount.value).toBe('10.00');
        expect(dispute.dispute_outcome).toBeUndefined();
      },
    );
  });
});
