// The small HTML pages behind an order's approve link.

import { fromMinorUnits } from '../../lib/money.js';
import { escapeHtml, htmlPage } from '../http/html.js';
import type { OrderRow } from './store.js';

const STYLE = 'body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem}button{font-size:1rem;padding:.5rem 1.5rem}';
const page = (title: string, body: string): string => htmlPage(title, body, STYLE);

export function approvalPage(row: OrderRow): string {
  const amount = `${fromMinorUnits(row.amount_minor, row.currency)} ${row.currency}`;
  const id = escapeHtml(row.id);
  const state =
    row.status === 'CREATED' || row.status === 'PAYER_ACTION_REQUIRED'
      ? `<form method="post" action="/checkoutnow"><input type="hidden" name="token" value="${id}"><button type="submit">Approve payment</button></form>`
      : `<p>This order is ${escapeHtml(row.status)}; there is nothing to approve.</p>`;
  return page('Approve payment', `<h1>Approve payment</h1><p>Order <code>${id}</code>: <strong>${escapeHtml(amount)}</strong> (${escapeHtml(row.intent)}).</p>${state}`);
}

export function approvedPage(orderId: string): string {
  return page('Payment approved', `<h1>Payment approved</h1><p>Order <code>${escapeHtml(orderId)}</code> is approved. You can close this page.</p>`);
}

export function missingOrderPage(): string {
  return page('Order not found', '<h1>Order not found</h1><p>Check the link and try again.</p>');
}
