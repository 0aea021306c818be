// The columns of a transaction search: one movement of the balance per line.

import type { TransactionDetail } from '../api/reporting.js';
import { formatDate, formatMoney } from './format.js';
import type { Column } from './table.js';

const info = (detail: TransactionDetail) => detail.transaction_info ?? {};

export const TRANSACTION_COLUMNS: readonly Column<TransactionDetail>[] = [
  { header: 'Date', value: (detail) => formatDate(info(detail).transaction_initiation_date) },
  { header: 'ID', value: (detail) => info(detail).transaction_id },
  { header: 'Code', value: (detail) => info(detail).transaction_event_code },
  { header: 'Status', value: (detail) => info(detail).transaction_status },
  { header: 'Amount', value: (detail) => formatMoney(info(detail).transaction_amount) },
  { header: 'Fee', value: (detail) => formatMoney(info(detail).fee_amount) },
  { header: 'Invoice', value: (detail) => info(detail).invoice_id },
  { header: 'Custom', value: (detail) => info(detail).custom_field },
  { header: 'Reference', value: (detail) => info(detail).paypal_reference_id, id: true },
];
