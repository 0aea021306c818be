// Invoice actions over HTTP: the status table (every status × operation), the spec's record-refund
// and its errors, payments, scheduled sends on the account clock, the outbox, QR codes, events.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type Merchant, type TestServer } from '../helpers/server.js';
import { createInvoice, sentInvoice, simpleInvoice } from './invoicing-helpers.js';

let server: TestServer;
const base = '/v2/invoicing/invoices';

beforeAll(async () => {
  server = await startTestServer({ memory: true });
});
afterAll(async () => {
  await server.close();
});

const post = (path: string, body: unknown = {}, headers: Record<string, string> = {}) => server.request('POST', `${base}${path}`, { body, headers });
const statusOf = async (id: string): Promise<string> => (await server.request('GET', `${base}/${id}`)).body.status;
const eventsOf = async (id: string): Promise<string[]> =>
  (await server.server.db.selectFrom('events').select('event_type').where('resource_id', '=', id).orderBy('seq').execute()).map((e) => e.event_type);

function future(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

/** Brings a fresh 10.00 USD invoice into `status` through the API (PAYMENT_PENDING by SQL: nothing reaches it). */
async function invoiceIn(status: string): Promise<string> {
  if (status === 'DRAFT') return (await createInvoice(server, simpleInvoice('10.00'))).id;
  if (status === 'SCHEDULED') {
    const invoice = await createInvoice(server, simpleInvoice('10.00', { invoice_date: future(5) }));
    expect((await post(`/${invoice.id}/send`)).status).toBe(202);
    return invoice.id;
  }
  const id = await sentInvoice(server, '10.00');
  const pay = async (value: string, method = 'CASH') => expect((await post(`/${id}/payments`, { method, amount: { currency_code: 'USD', value } })).status).toBe(200);
  const refund = async (value: string, method = 'CASH') => expect((await post(`/${id}/refunds`, { method, amount: { currency_code: 'USD', value } })).status).toBe(200);
  switch (status) {
    case 'SENT':
      break;
    case 'UNPAID': {
      const paid = await post(`/${id}/payments`, { method: 'CASH', amount: { currency_code: 'USD', value: '1.00' } });
      expect((await server.request('DELETE', `${base}/${id}/payments/${paid.body.payment_id}`)).status).toBe(204);
      break;
    }
    case 'PARTIALLY_PAID':
      await pay('4.00');
      break;
    case 'MARKED_AS_PAID':
      await pay('10.00');
      break;
    case 'PAID':
      await pay('10.00', 'PLATFORM');
      break;
    case 'PARTIALLY_REFUNDED':
      await pay('10.00');
      await refund('3.00');
      break;
    case 'MARKED_AS_REFUNDED':
      await pay('10.00');
      await refund('10.00');
      break;
    case 'REFUNDED':
      await pay('10.00', 'PLATFORM');
      await refund('10.00', 'PLATFORM');
      break;
    case 'CANCELLED':
      expect((await post(`/${id}/cancel`)).status).toBe(204);
      break;
    case 'PAYMENT_PENDING':
      await server.server.db.updateTable('invoices').set({ status: 'PAYMENT_PENDING' }).where('id', '=', id).execute();
      break;
    default:
      throw new Error(status);
  }
  expect(await statusOf(id)).toBe(status);
  return id;
}

type Outcome = number | string; // an HTTP status, or the 422 issue
const OPERATIONS = ['send', 'remind', 'cancel', 'payment', 'refund', 'delete', 'update', 'qr'] as const;
type Operation = (typeof OPERATIONS)[number];

const P = 'CANNOT_CANCEL_PAID_INVOICE';
const R = 'CANNOT_CANCEL_REFUNDED_INVOICE';
// status:              send   remind                   cancel                            payment                    refund                    delete                   update                   qr
const TABLE: Record<string, Outcome[]> = {
  DRAFT: [200, 'CANNOT_REMIND_INVOICE', 'CANNOT_CANCEL_DRAFT_INVOICE', 'CANNOT_PROCESS_PAYMENTS', 'CANNOT_PROCESS_REFUNDS', 204, 200, 'INVOICE_NOT_SENT'],
  SCHEDULED: [202, 'CANNOT_REMIND_INVOICE', 'CANNOT_CANCEL_SCHEDULED_INVOICE', 'CANNOT_PROCESS_PAYMENTS', 'CANNOT_PROCESS_REFUNDS', 204, 200, 'INVOICE_NOT_SENT'],
  SENT: [200, 204, 204, 200, 'CANNOT_PROCESS_REFUNDS', 'CANNOT_DELETE_INVOICE', 200, 200],
  UNPAID: [200, 204, 204, 200, 'CANNOT_PROCESS_REFUNDS', 'CANNOT_DELETE_INVOICE', 200, 200],
  PARTIALLY_PAID: [200, 204, P, 200, 200, 'CANNOT_DELETE_INVOICE', 'CANNOT_UPDATE_INVOICE', 200],
  PAID: [200, 'CANNOT_REMIND_INVOICE', P, 'CANNOT_PROCESS_PAYMENTS', 200, 'CANNOT_DELETE_INVOICE', 'CANNOT_UPDATE_INVOICE', 200],
  MARKED_AS_PAID: [200, 'CANNOT_REMIND_INVOICE', P, 'CANNOT_PROCESS_PAYMENTS', 200, 'CANNOT_DELETE_INVOICE', 'CANNOT_UPDATE_INVOICE', 200],
  PARTIALLY_REFUNDED: [200, 'CANNOT_REMIND_INVOICE', R, 'CANNOT_PROCESS_PAYMENTS', 200, 'CANNOT_DELETE_INVOICE', 'CANNOT_UPDATE_INVOICE', 200],
  REFUNDED: [200, 'CANNOT_REMIND_INVOICE', R, 'CANNOT_PROCESS_PAYMENTS', 'CANNOT_PROCESS_REFUNDS', 'CANNOT_DELETE_INVOICE', 'CANNOT_UPDATE_INVOICE', 200],
  MARKED_AS_REFUNDED: [200, 'CANNOT_REMIND_INVOICE', R, 'CANNOT_PROCESS_PAYMENTS', 'CANNOT_PROCESS_REFUNDS', 'CANNOT_DELETE_INVOICE', 'CANNOT_UPDATE_INVOICE', 200],
  PAYMENT_PENDING: [200, 'CANNOT_REMIND_INVOICE', P, 'CANNOT_PROCESS_PAYMENTS', 'CANNOT_PROCESS_REFUNDS', 'CANNOT_DELETE_INVOICE', 'CANNOT_UPDATE_INVOICE', 200],
  CANCELLED: ['INVOICE_CANCELED_ALREADY', 'CANNOT_REMIND_INVOICE', 'INVOICE_CANCELED_ALREADY', 'CANNOT_PROCESS_PAYMENTS', 'CANNOT_PROCESS_REFUNDS', 'CANNOT_DELETE_INVOICE', 'CANNOT_UPDATE_INVOICE', 'INVOICE_NOT_SENT'],
};

function perform(operation: Operation, id: string) {
  switch (operation) {
    case 'send':
      return post(`/${id}/send`);
    case 'remind':
      return post(`/${id}/remind`);
    case 'cancel':
      return post(`/${id}/cancel`);
    case 'payment':
      return post(`/${id}/payments`, { method: 'CASH', amount: { currency_code: 'USD', value: '0.01' } });
    case 'refund':
      return post(`/${id}/refunds`, { method: 'CASH', amount: { currency_code: 'USD', value: '0.01' } });
    case 'delete':
      return server.request('DELETE', `${base}/${id}`);
    case 'update':
      return server.request('PUT', `${base}/${id}`, { body: simpleInvoice('10.00') });
    case 'qr':
      return post(`/${id}/generate-qr-code`);
  }
}

describe('status table: every (status, operation) pair', () => {
  const cases = Object.entries(TABLE).flatMap(([status, outcomes]) => OPERATIONS.map((operation, i) => [status, operation, outcomes[i]] as const));
  it.each(cases)('%s × %s -> %s', async (status, operation, expected) => {
    const id = await invoiceIn(status);
    const before = await statusOf(id);
    const response = await perform(operation, id);
    if (typeof expected === 'number') {
      expect(response.status).toBe(expected);
      return;
    }
    expect(response.status).toBe(422);
    expect(response.body.name).toBe('UNPROCESSABLE_ENTITY');
    expect(response.body.details[0].issue).toBe(expected);
    expect(await statusOf(id)).toBe(before);
  });
});

describe('POST /v2/invoicing/invoices/{id}/refunds (the spec operation)', () => {
  async function paidInvoice(value = '10.00', method = 'CASH'): Promise<string> {
    const id = await sentInvoice(server, value);
    expect((await post(`/${id}/payments`, { method })).status).toBe(200);
    return id;
  }

  it('without an amount records the whole paid amount: 200 { refund_id }, MARKED_AS_REFUNDED', async () => {
    const id = await paidInvoice('25.50');
    const response = await post(`/${id}/refunds`, { method: 'BANK_TRANSFER', refund_date: '2024-02-29' });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['refund_id']);
    expect(response.body.refund_id).toMatch(/^[0-9A-Za-z_-]{1,22}$/);
    const invoice = (await server.request('GET', `${base}/${id}`)).body;
    expect(invoice.status).toBe('MARKED_AS_REFUNDED');
    expect(invoice.refunds).toEqual({
      refund_amount: { currency_code: 'USD', value: '25.50' },
      transactions: [
        { refund_id: response.body.refund_id, type: 'EXTERNAL', method: 'BANK_TRANSFER', refund_date: '2024-02-29', amount: { currency_code: 'USD', value: '25.50' } },
      ],
    });
    expect(await eventsOf(id)).toEqual(['INVOICING.INVOICE.CREATED', 'INVOICING.INVOICE.PAID', 'INVOICING.INVOICE.REFUNDED']);
  });

  it('partial refunds: PARTIALLY_REFUNDED, then REFUNDED (PLATFORM) when all is refunded; never more than paid', async () => {
    const id = await paidInvoice('10.00', 'PLATFORM');
    expect(await statusOf(id)).toBe('PAID');
    const first = await post(`/${id}/refunds`, { method: 'PLATFORM', amount: { currency_code: 'USD', value: '4.00' } });
    expect(first.status).toBe(200);
    expect(await statusOf(id)).toBe('PARTIALLY_REFUNDED');
    const tooMuch = await post(`/${id}/refunds`, { method: 'PLATFORM', amount: { currency_code: 'USD', value: '6.01' } });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body).toMatchObject({ name: 'UNPROCESSABLE_ENTITY', details: [expect.objectContaining({ issue: 'INVALID_REFUND_AMOUNT' })] });
    const rest = await post(`/${id}/refunds`, { method: 'PLATFORM' });
    expect(rest.status).toBe(200);
    const invoice = (await server.request('GET', `${base}/${id}`)).body;
    expect(invoice.status).toBe('REFUNDED');
    expect(invoice.refunds.refund_amount.value).toBe('10.00');
    expect(invoice.refunds.transactions.map((t: { amount: { value: string } }) => t.amount.value)).toEqual(['4.00', '6.00']);
    // Deleting a refund puts the invoice back.
    expect((await server.request('DELETE', `${base}/${id}/refunds/${first.body.refund_id}`)).status).toBe(204);
    expect(await statusOf(id)).toBe('PARTIALLY_REFUNDED');
  });

  it('only what was paid can be refunded on a partly paid invoice', async () => {
    const id = await sentInvoice(server, '10.00');
    await post(`/${id}/payments`, { method: 'CASH', amount: { currency_code: 'USD', value: '3.00' } });
    const over = await post(`/${id}/refunds`, { method: 'CASH', amount: { currency_code: 'USD', value: '3.01' } });
    expect(over.body.details[0].issue).toBe('INVALID_REFUND_AMOUNT');
    const ok = await post(`/${id}/refunds`, { method: 'CASH' });
    expect(ok.status).toBe(200);
    expect(await statusOf(id)).toBe('MARKED_AS_REFUNDED');
  });

  it.each([
    [{}, '/method', 'MISSING_REQUIRED_PARAMETER'],
    [{ method: 'PAYPAL' }, '/method', 'INVALID_REFUND_METHOD'],
    [{ method: 'cash' }, '/method', 'INVALID_REFUND_METHOD'],
    [{ method: 'X'.repeat(256) }, '/method', 'INVALID_STRING_MAX_LENGTH'],
    [{ method: 42 }, '/method', 'INVALID_PARAMETER_SYNTAX'],
    [{ method: 'CASH', refund_date: '2024-13-01' }, '/refund_date', 'INVALID_PARAMETER_SYNTAX'],
    [{ method: 'CASH', refund_date: '2023-02-29' }, '/refund_date', 'INVALID_PARAMETER_SYNTAX'],
    [{ method: 'CASH', refund_date: '2024-04-31' }, '/refund_date', 'INVALID_PARAMETER_SYNTAX'],
    [{ method: 'CASH', refund_date: '2024-1-01' }, '/refund_date', 'INVALID_PARAMETER_SYNTAX'],
    [{ method: 'CASH', refund_date: '2024-01-011' }, '/refund_date', 'INVALID_PARAMETER_SYNTAX'],
    [{ method: 'CASH', refund_date: '2024-01-01T00:00:00Z' }, '/refund_date', 'INVALID_PARAMETER_SYNTAX'],
    [{ method: 'CASH', amount: { currency_code: 'USD' } }, '/amount/value', 'MISSING_REQUIRED_PARAMETER'],
    [{ method: 'CASH', amount: { currency_code: 'US', value: '1.00' } }, '/amount/currency_code', 'INVALID_STRING_LENGTH'],
    [{ method: 'CASH', amount: { currency_code: 'EUR', value: '1.00' } }, '/amount/currency_code', 'NOT_SUPPORTED'],
    [{ method: 'CASH', amount: { currency_code: 'USD', value: '1.5x' } }, '/amount/value', 'INVALID_PARAMETER_SYNTAX'],
    [{ method: 'CASH', amount: { currency_code: 'USD', value: '1'.repeat(33) } }, '/amount/value', 'INVALID_STRING_MAX_LENGTH'],
    [{ method: 'CASH', amount: { currency_code: 'USD', value: '0.00' } }, '/amount/value', 'VALUE_CANNOT_BE_ZERO'],
    [{ method: 'CASH', amount: { currency_code: 'USD', value: '1.001' } }, '/amount/value', 'INVALID_DECIMAL_VALUE'],
    [{ method: 'CASH', amount: { currency_code: 'USD', value: '1234567890123456' } }, '/amount/value', 'INVALID_INTEGER_VALUE'],
  ])('400 INVALID_REQUEST (%#)', async (body, field, issue) => {
    const id = await paidInvoice();
    const response = await post(`/${id}/refunds`, body);
    expect(response.status).toBe(400);
    expect(response.body.name).toBe('INVALID_REQUEST');
    expect(response.body.details[0]).toMatchObject({ field, issue, location: 'body' });
    expect(await statusOf(id)).toBe('MARKED_AS_PAID');
  });

  it.each(['BANK_TRANSFER', 'CASH', 'CHECK', 'CREDIT_CARD', 'DEBIT_CARD', 'PLATFORM', 'WIRE_TRANSFER', 'OTHER'])('accepts method %s', async (method) => {
    const id = await paidInvoice();
    const response = await post(`/${id}/refunds`, { method, amount: { currency_code: 'USD', value: '1.00' } });
    expect(response.status).toBe(200);
  });

  it('unknown invoice: 404 RESOURCE_NOT_FOUND; nothing paid: 422 CANNOT_PROCESS_REFUNDS', async () => {
    const missing = await post('/INV2-UNKNOWN/refunds', { method: 'CASH' });
    expect(missing.status).toBe(404);
    expect(missing.body.name).toBe('RESOURCE_NOT_FOUND');
    const id = await sentInvoice(server, '5.00');
    const none = await post(`/${id}/refunds`, { method: 'CASH' });
    expect(none.status).toBe(422);
    expect(none.body.details[0].issue).toBe('CANNOT_PROCESS_REFUNDS');
  });

  it('a retried refund with the same Service-Request-Id is recorded once', async () => {
    const id = await paidInvoice();
    const headers = { 'service-request-id': `refund-${id}` };
    const body = { method: 'CASH', amount: { currency_code: 'USD', value: '2.00' } };
    const first = await post(`/${id}/refunds`, body, headers);
    const second = await post(`/${id}/refunds`, body, headers);
    expect(second.body).toEqual(first.body);
    const invoice = (await server.request('GET', `${base}/${id}`)).body;
    expect(invoice.refunds.transactions).toHaveLength(1);
  });
});

describe('payments', () => {
  it('records partial and full payments; due_amount follows; PAID event each time', async () => {
    const id = await sentInvoice(server, '10.00');
    const part = await post(`/${id}/payments`, { method: 'CHECK', amount: { currency_code: 'USD', value: '4.00' }, note: 'cheque 12' });
    expect(part.status).toBe(200);
    expect(part.body.payment_id).toMatch(/^[0-9A-Za-z_-]{1,22}$/);
    let invoice = (await server.request('GET', `${base}/${id}`)).body;
    expect(invoice.status).toBe('PARTIALLY_PAID');
    expect(invoice.due_amount.value).toBe('6.00');
    const over = await post(`/${id}/payments`, { method: 'CASH', amount: { currency_code: 'USD', value: '6.01' } });
    expect(over.status).toBe(422);
    expect(over.body.details[0].issue).toBe('PAYMENT_AMOUNT_GREATER_THAN_AMOUNT_DUE');
    expect((await post(`/${id}/payments`, { method: 'CASH' })).status).toBe(200);
    invoice = (await server.request('GET', `${base}/${id}`)).body;
    expect(invoice.status).toBe('MARKED_AS_PAID');
    expect(invoice.due_amount.value).toBe('0.00');
    expect(invoice.payments.paid_amount.value).toBe('10.00');
    expect(invoice.payments.transactions[0]).toMatchObject({ method: 'CHECK', type: 'EXTERNAL', note: 'cheque 12', amount: { value: '4.00' } });
    expect(await eventsOf(id)).toEqual(['INVOICING.INVOICE.CREATED', 'INVOICING.INVOICE.PAID', 'INVOICING.INVOICE.PAID']);
  });

  it('a payment cannot be deleted when the refunds would exceed what is left (CANNOT_DELETE_EXTERNAL_PAYMENT)', async () => {
    const id = await sentInvoice(server, '10.00');
    const a = await post(`/${id}/payments`, { method: 'CASH', amount: { currency_code: 'USD', value: '6.00' } });
    await post(`/${id}/payments`, { method: 'CASH', amount: { currency_code: 'USD', value: '4.00' } });
    await post(`/${id}/refunds`, { method: 'CASH', amount: { currency_code: 'USD', value: '5.00' } });
    const refused = await server.request('DELETE', `${base}/${id}/payments/${a.body.payment_id}`);
    expect(refused.status).toBe(422);
    expect(refused.body.details[0].issue).toBe('CANNOT_DELETE_EXTERNAL_PAYMENT');
    const missing = await server.request('DELETE', `${base}/${id}/payments/NOPE`);
    expect(missing.status).toBe(404);
  });

  // PAID (REFUNDED) only when the platform moved every part; a part the invoicer recorded marks it.
  it.each([
    [['PLATFORM', 'PLATFORM'], 'PAID', ['PLATFORM', 'PLATFORM'], 'REFUNDED'],
    [['CASH', 'PLATFORM'], 'MARKED_AS_PAID', ['PLATFORM', 'CASH'], 'MARKED_AS_REFUNDED'],
    [['PLATFORM', 'CASH'], 'MARKED_AS_PAID', ['CASH', 'CASH'], 'MARKED_AS_REFUNDED'],
    [['CASH', 'CHECK'], 'MARKED_AS_PAID', ['PLATFORM', 'PLATFORM'], 'REFUNDED'],
  ])('payments by %j: %s; refunds by %j: %s', async (payments, paidStatus, refunds, refundedStatus) => {
    const id = await sentInvoice(server, '10.00');
    for (const method of payments) expect((await post(`/${id}/payments`, { method, amount: { currency_code: 'USD', value: '5.00' } })).status).toBe(200);
    expect(await statusOf(id)).toBe(paidStatus);
    for (const method of refunds) expect((await post(`/${id}/refunds`, { method, amount: { currency_code: 'USD', value: '5.00' } })).status).toBe(200);
    expect(await statusOf(id)).toBe(refundedStatus);
  });

  it('validates the payment like the refund', async () => {
    const id = await sentInvoice(server, '10.00');
    const bad = await post(`/${id}/payments`, { method: 'GOLD' });
    expect(bad.status).toBe(400);
    expect(bad.body.details[0]).toMatchObject({ field: '/method', issue: 'INVALID_PAYMENT_METHOD' });
  });
});

describe('tips (configuration.allow_tip, gratuity)', () => {
  async function tippable(allowTip: boolean): Promise<string> {
    const invoice = await createInvoice(server, { ...simpleInvoice('10.00'), configuration: { allow_tip: allowTip } });
    expect((await post(`/${invoice.id}/send`)).status).toBe(200);
    return invoice.id;
  }
  const usd = (value: string) => ({ currency_code: 'USD', value });

  it('a payment through the platform may add a tip when the invoice allows it: gratuity shows it', async () => {
    const id = await tippable(true);
    expect((await post(`/${id}/payments`, { method: 'PLATFORM', amount: usd('4.00') })).status).toBe(200);
    const tipped = await post(`/${id}/payments`, { method: 'PLATFORM', amount: usd('7.50') });
    expect(tipped.status, tipped.text).toBe(200);
    const invoice = (await server.request('GET', `${base}/${id}`)).body;
    expect(invoice).toMatchObject({ status: 'PAID', gratuity: usd('1.50'), due_amount: usd('0.00'), payments: { paid_amount: usd('11.50') } });
    expect(invoice.payments.transactions.map((payment: { amount: unknown }) => payment.amount)).toEqual([usd('4.00'), usd('7.50')]);
    expect(invoice.payments.transactions[1].gratuity_minor).toBeUndefined();
    // The tip is paid money: it can be refunded with the rest.
    expect((await post(`/${id}/refunds`, { method: 'PLATFORM' })).status).toBe(200);
    expect((await server.request('GET', `${base}/${id}`)).body).toMatchObject({ status: 'REFUNDED', refunds: { refund_amount: usd('11.50') } });
    const listed = (await server.request('GET', `${base}?page_size=100`)).body.items.find((item: { id: string }) => item.id === id);
    expect(listed.gratuity).toEqual(usd('1.50'));
  });

  it.each([
    ['allow_tip off', false, 'PLATFORM'],
    ['a payment the invoicer records (CASH)', true, 'CASH'],
  ])('no tip with %s: more than due is PAYMENT_AMOUNT_GREATER_THAN_AMOUNT_DUE', async (_label, allowTip, method) => {
    const id = await tippable(allowTip);
    const refused = await post(`/${id}/payments`, { method, amount: usd('10.01') });
    expect(refused.status).toBe(422);
    expect(refused.body.details[0].issue).toBe('PAYMENT_AMOUNT_GREATER_THAN_AMOUNT_DUE');
    const invoice = (await server.request('GET', `${base}/${id}`)).body;
    expect(invoice.status).toBe('SENT');
    expect(invoice.gratuity).toBeUndefined();
  });
});

describe('send, scheduled sends, outbox', () => {
  it('send records the e-mails in the outbox (recipient, CC, invoicer copy), newest first', async () => {
    const invoice = await createInvoice(server, {
      ...simpleInvoice('42.00'),
      invoicer: { business_name: 'Acme', email_address: 'me@acme.example' },
      additional_recipients: ['boss@example.com'],
    });
    const sent = await post(`/${invoice.id}/send`, {
      subject: 'Your invoice',
      note: 'Pay soon please',
      send_to_invoicer: true,
      additional_recipients: ['cc@example.com'],
    });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ rel: 'payer-view', method: 'GET' });
    const got = (await server.request('GET', `${base}/${invoice.id}`)).body;
    expect(got.status).toBe('SENT');
    expect(got.detail.metadata.first_sent_time).toBeDefined();
    const outbox = await server.request('GET', `/_payctl/outbox?invoice_id=${invoice.id}`);
    expect(outbox.status).toBe(200);
    const messages = outbox.body.messages as Array<{ to: string; kind: string; subject: string; body: string }>;
    expect(messages.map((m) => m.to).sort()).toEqual(['boss@example.com', 'cc@example.com', 'me@acme.example', 'payer@example.com']);
    expect(messages[0]!.kind).toBe('INVOICER_COPY');
    const toPayer = messages.find((m) => m.to === 'payer@example.com')!;
    expect(toPayer.subject).toBe('Your invoice');
    expect(toPayer.body).toContain('Total: 42.00 USD');
    expect(toPayer.body).toContain('Pay soon please');
    // Reminders and cancellations are recorded too.
    await post(`/${invoice.id}/remind`, { send_to_recipient: true });
    await post(`/${invoice.id}/cancel`, { send_to_recipient: false });
    const after = await server.request('GET', `/_payctl/outbox?invoice_id=${invoice.id}&limit=2`);
    expect(after.body.messages.map((m: { kind: string }) => m.kind)).toEqual(['REMINDER', 'REMINDER']);
    expect(await eventsOf(invoice.id)).toEqual(['INVOICING.INVOICE.CREATED', 'INVOICING.INVOICE.CANCELLED']);
  });

  it('send_to_recipient=false sends no e-mail to the payer (share link only)', async () => {
    const invoice = await createInvoice(server, simpleInvoice('1.00'));
    await post(`/${invoice.id}/send`, { send_to_recipient: false });
    const outbox = await server.request('GET', `/_payctl/outbox?invoice_id=${invoice.id}`);
    expect(outbox.body.messages).toEqual([]);
  });

  it('an invoice dated in the future is SCHEDULED (202) and sent when the account clock reaches its date', async () => {
    const merchant: Merchant = await server.createMerchant();
    const clock = (await server.request('GET', '/_payctl/clock', { token: merchant.token })).body;
    const today = (clock.now as string).slice(0, 10);
    const inTwoDays = new Date(Date.parse(`${today}T00:00:00Z`) + 2 * 86_400_000).toISOString().slice(0, 10);
    const invoice = await createInvoice(server, simpleInvoice('9.99', { invoice_date: inTwoDays }), merchant.token);
    const send = await server.request('POST', `${base}/${invoice.id}/send`, { token: merchant.token, body: { note: 'see you' } });
    expect(send.status).toBe(202);
    expect(send.body.links[0]).toMatchObject({ rel: 'self', method: 'GET' });
    const events = await server.server.db.selectFrom('events').select('event_type').where('resource_id', '=', invoice.id).execute();
    expect(events.map((e) => e.event_type)).toContain('INVOICING.INVOICE.SCHEDULED');

    // Tokens expire on the account's clock too: take a new one after each jump.
    await server.advanceClock(86_400, merchant.token);
    merchant.token = await server.tokenFor(merchant.client_id, merchant.client_secret);
    let got = await server.request('GET', `${base}/${invoice.id}`, { token: merchant.token });
    expect(got.body.status).toBe('SCHEDULED');
    let outbox = await server.request('GET', '/_payctl/outbox', { token: merchant.token });
    expect(outbox.body.messages).toEqual([]);

    await server.advanceClock(86_400, merchant.token);
    merchant.token = await server.tokenFor(merchant.client_id, merchant.client_secret);
    got = await server.request('GET', `${base}/${invoice.id}`, { token: merchant.token });
    expect(got.body.status).toBe('SENT');
    outbox = await server.request('GET', '/_payctl/outbox', { token: merchant.token });
    expect(outbox.body.messages).toHaveLength(1);
    expect(outbox.body.messages[0]).toMatchObject({ to: 'payer@example.com', kind: 'INVOICE', invoice_id: invoice.id });
    expect(outbox.body.messages[0].body).toContain('see you');
  });

  it('the outbox is per account', async () => {
    const fresh = await server.createMerchant();
    const outbox = await server.request('GET', '/_payctl/outbox', { token: fresh.token });
    expect(outbox.body.messages).toEqual([]);
  });
});

describe('QR code', () => {
  it('returns PNG bytes, or Base64 text with Accept: text/plain', async () => {
    const id = await sentInvoice(server, '1.00');
    const png = await fetch(`${server.url}${base}/${id}/generate-qr-code`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.merchant.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ width: 200, height: 300 }),
    });
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    const bytes = Buffer.from(await png.arrayBuffer());
    expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(bytes.readUInt32BE(16)).toBe(200); // IHDR width: the smaller of width and height
    const text = await server.request('POST', `${base}/${id}/generate-qr-code`, { body: {}, headers: { accept: 'text/plain' } });
    expect(text.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(Buffer.from(text.text, 'base64').subarray(1, 4).toString()).toBe('PNG');
  });

  it.each([
    [{ width: 149 }, '/width', 'INVALID_INTEGER_MIN_VALUE'],
    [{ height: 501 }, '/height', 'INVALID_INTEGER_MAX_VALUE'],
    [{ action: 'steal' }, '/action', 'INVALID_PARAMETER_SYNTAX'],
  ])('checks the QR settings (%#)', async (body, field, issue) => {
    const id = await sentInvoice(server, '1.00');
    const response = await post(`/${id}/generate-qr-code`, body);
    expect(response.status).toBe(400);
    expect(response.body.details[0]).toMatchObject({ field, issue });
  });
});

describe('search', () => {
  it('finds by recipient, status, number and total range', async () => {
    const merchant = await server.createMerchant();
    const make = async (value: string, email: string, number: string) =>
      createInvoice(server, { ...simpleInvoice(value, { invoice_number: number }), primary_recipients: [{ billing_info: { email_address: email, name: { given_name: 'Grace', surname: 'Hopper' } } }] }, merchant.token);
    const a = await make('10.00', 'grace@navy.example', 'S-1');
    await make('20.00', 'other@example.com', 'S-2');
    const c = await make('30.00', 'grace@navy.example', 'S-3');
    await server.request('POST', `${base}/${c.id}/send`, { token: merchant.token, body: {} });
    const search = (body: unknown) => server.request('POST', '/v2/invoicing/search-invoices?total_required=true', { token: merchant.token, body });
    expect((await search({ recipient_email: 'GRACE@navy.example' })).body.total_items).toBe(2);
    expect((await search({ status: ['SENT'] })).body.items.map((i: { id: string }) => i.id)).toEqual([c.id]);
    expect((await search({ invoice_number: 'S-1' })).body.items.map((i: { id: string }) => i.id)).toEqual([a.id]);
    const range = await search({ total_amount_range: { lower_amount: { currency_code: 'USD', value: '15' }, upper_amount: { currency_code: 'USD', value: '30.00' } } });
    expect(range.body.total_items).toBe(2);
    expect((await search({ recipient_last_name: 'opp' })).body.total_items).toBe(3);
    // Names match whatever their case, on both databases (PostgreSQL's LIKE alone is case-sensitive).
    expect((await search({ recipient_first_name: 'gRA', recipient_last_name: 'HOP' })).body.total_items).toBe(3);
    expect((await search({ recipient_last_name: 'hoppers' })).body.total_items).toBe(0);
    expect((await search({ archived: true })).body.total_items).toBe(0);
    // A leap second is a well-formed time (it was a 500 here: the parsers differed).
    const leap = await search({ creation_date_range: { start: '2016-12-31T23:59:60Z', end: '2099-12-31t23:59:60.250z' } });
    expect(leap.status, leap.text).toBe(200);
    expect(leap.body.total_items).toBe(3);
    const noSuchDay = await search({ creation_date_range: { start: '2023-02-29T00:00:00Z', end: '2099-12-31T00:00:00Z' } });
    expect(noSuchDay.body.details[0]).toMatchObject({ field: '/creation_date_range/start', issue: 'INVALID_PARAMETER_SYNTAX' });
    const tooMany = await search({ status: ['DRAFT', 'SENT', 'PAID', 'UNPAID', 'REFUNDED', 'CANCELLED'] });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.details[0].issue).toBe('INVALID_ARRAY_MAX_ITEMS');
  });
});
