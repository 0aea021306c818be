// How a dispute reads at a terminal: its headline rows, a timeline of what happened, the commands
// for the actions open now, and the whole case file that `payctl disputes get` prints.

import type { ClockReading } from '../account-clock.js';
import { wallClock } from '../account-clock.js';
import type { Dispute } from '../api/disputes.js';
import { colorStatus, stdoutChalk } from './colors.js';
import { formatDate, formatMoney, type DetailRow } from './format.js';

/** What each action link of a dispute means to the person at the terminal: the command that takes it. */
const NEXT_STEPS: Record<string, (id: string) => string> = {
  send_message: (id) => `payctl disputes send-message ${id} --message "..." [--file note.pdf]`,
  make_offer: (id) => `payctl disputes make-offer ${id} --type REFUND --amount 10.00 --note "..."`,
  accept_claim: (id) => `payctl disputes accept-claim ${id} --note "..." [--type PARTIAL_REFUND --amount 10.00]`,
  provide_evidence: (id) => `payctl disputes provide-evidence ${id} --type PROOF_OF_FULFILLMENT --carrier UPS --tracking-number 1Z... [--file proof.pdf]`,
  escalate: (id) => `payctl disputes escalate ${id} --note "..."`,
  appeal: (id) => `payctl disputes appeal ${id} --file new-evidence.pdf --notes "..."`,
  acknowledge_return_item: (id) => `payctl disputes acknowledge-return ${id} --type ITEM_RECEIVED`,
  adjudicate: (id) => `payctl api POST /v1/customer/disputes/${id}/adjudicate -d '{"adjudication_outcome":"SELLER_FAVOR"}'   (sandbox decision)`,
  provide_supporting_info: (id) => `payctl disputes provide-supporting-info ${id} --notes "..." [--file slip.pdf]`,
  require_evidence: (id) => `payctl api POST /v1/customer/disputes/${id}/require-evidence -d '{"action":"SELLER_EVIDENCE"}'   (sandbox)`,
};

/** The commands for the actions the dispute's links allow now. */
export function nextSteps(dispute: Dispute): string[] {
  return dispute.links.flatMap((link) => NEXT_STEPS[link.rel]?.(dispute.dispute_id) ?? []);
}

/** How long until `due` on the given clock, e.g. "in 9d 23h", or "overdue". */
export function timeLeft(due: string, now: number): string {
  const ms = Date.parse(due) - now;
  if (!Number.isFinite(ms)) return '';
  if (ms <= 0) return 'overdue';
  const hours = Math.floor(ms / 3_600_000);
  return hours >= 24 ? `in ${Math.floor(hours / 24)}d ${hours % 24}h` : `in ${hours}h ${Math.floor((ms % 3_600_000) / 60_000)}m`;
}

/** A due date with how long is left and on which clock: "2027-01-09 00:00:00Z (in 10d 0h, account clock)". */
export function dueText(due: string, clock: ClockReading): string {
  const left = timeLeft(due, clock.now);
  return left ? `${formatDate(due)} (${left}, ${clock.label})` : formatDate(due);
}

/** The headline of a dispute, for `get` and for what the action commands print. */
export function summaryRows(dispute: Dispute, clock: ClockReading = wallClock()): DetailRow[] {
  const due = dispute.seller_response_due_date ?? dispute.buyer_response_due_date;
  const whose = dispute.seller_response_due_date ? 'Seller due' : 'Buyer due';
  return [
    ['Dispute', dispute.dispute_id],
    ['Status', dispute.status, 'status'],
    ['Stage', dispute.dispute_life_cycle_stage],
    ['Reason', dispute.reason],
    ['Amount', formatMoney(dispute.dispute_amount)],
    ['Outcome', dispute.dispute_outcome ? [dispute.dispute_outcome.outcome_code, formatMoney(dispute.dispute_outcome.amount_refunded)].filter(Boolean).join(' ') : undefined],
    [whose, due ? dueText(due, clock) : undefined],
  ];
}

/** What an action command prints: the headline, then the commands for what can be done next. */
export function actionRows(dispute: Dispute, clock?: ClockReading): DetailRow[] {
  return [...summaryRows(dispute, clock), ['Next', nextSteps(dispute).join('\n')]];
}

interface TimelineEntry {
  time: string;
  who: string;
  what: string;
}

function documentsText(documents: ReadonlyArray<{ name?: string | undefined }> | undefined): string {
  return documents && documents.length > 0 ? ` [${documents.map((document) => document.name ?? '?').join(', ')}]` : '';
}

/** Messages, offers, evidence, decisions and money movements, oldest first. */
export function timeline(dispute: Dispute): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  if (dispute.create_time) entries.push({ time: dispute.create_time, who: 'BUYER', what: `opened the dispute (${dispute.reason ?? ''})` });
  for (const message of dispute.messages ?? []) {
    entries.push({ time: message.time_posted ?? '', who: message.posted_by ?? '', what: `message: "${message.content ?? ''}"${documentsText(message.documents)}` });
  }
  for (const event of dispute.offer?.history ?? []) {
    const amount = event.offer_amount ? ` ${formatMoney(event.offer_amount)}` : '';
    const note = event.notes ? `: "${event.notes}"` : '';
    entries.push({ time: event.offer_time ?? '', who: event.actor ?? '', what: `offer ${(event.event_type ?? '').toLowerCase()} ${event.offer_type ?? ''}${amount}${note}` });
  }
  for (const evidence of dispute.evidences ?? []) {
    const source = evidence.source ?? '';
    const requested = source.startsWith('REQUESTED_FROM_');
    const tracking = (evidence.evidence_info?.tracking_info ?? []).map((item) => `${item.carrier_name ?? ''} ${item.tracking_number ?? ''}`.trim());
    const refunds = evidence.evidence_info?.refund_ids ?? [];
    const info = [...tracking, ...refunds.map((id) => `refund ${id}`)].join(', ');
    entries.push({
      time: evidence.date ?? '',
      who: requested ? 'SERVICE' : source.replace('SUBMITTED_BY_', ''),
      what: requested
        ? `asked the ${source.replace('REQUESTED_FROM_', '').toLowerCase()} for evidence`
        : `evidence ${evidence.evidence_type ?? ''}${info ? ` (${info})` : ''}${evidence.notes ? `: "${evidence.notes}"` : ''}${documentsText(evidence.documents)}`,
    });
  }
  for (const decision of dispute.adjudications ?? []) {
    entries.push({ time: decision.adjudication_time ?? '', who: 'SERVICE', what: `decision ${decision.type ?? ''} in ${decision.dispute_life_cycle_stage ?? ''}` });
  }
  for (const movement of dispute.money_movements ?? []) {
    entries.push({ time: movement.initiated_time ?? '', who: movement.affected_party ?? '', what: `money ${movement.type ?? ''} ${formatMoney(movement.amount)}` });
  }
  return entries.sort((a, b) => (Date.parse(a.time) || 0) - (Date.parse(b.time) || 0));
}

/** The case file: summary, disputed transaction, timeline and next steps. */
export function caseFile(dispute: Dispute, clock: ClockReading = wallClock()): string {
  const chalk = stdoutChalk();
  const heading = (text: string) => chalk.bold(text);
  const refundable = dispute.refund_details?.allowed_refund_amount;
  const extra: DetailRow = ['Refundable', refundable ? formatMoney(refundable) : undefined];
  const rows = [...summaryRows(dispute, clock), extra].filter(([, value]) => value);
  const width = Math.max(...rows.map(([label]) => label.length));
  const lines = [heading('Summary')];
  for (const [label, value, kind] of rows) lines.push(`  ${label.padEnd(width)}  ${kind === 'status' && value ? colorStatus(value, chalk) : value}`);
  const transaction = dispute.disputed_transactions?.[0];
  if (transaction) {
    lines.push('', heading('Transaction'));
    lines.push(`  Capture      ${transaction.seller_transaction_id ?? ''} (${transaction.transaction_status ?? ''})`);
    lines.push(`  Gross        ${formatMoney(transaction.gross_amount)}`);
    lines.push(`  Buyer's id   ${transaction.buyer_transaction_id ?? ''}`);
    if (transaction.create_time) lines.push(`  Paid         ${formatDate(transaction.create_time)}`);
  }
  lines.push('', heading('Timeline'));
  for (const entry of timeline(dispute)) lines.push(`  ${formatDate(entry.time)}  ${entry.who.padEnd(7)}  ${entry.what}`);
  const steps = nextSteps(dispute);
  lines.push('', heading('Next'));
  if (steps.length === 0) lines.push('  Nothing to do: no action is open to you on this dispute.');
  for (const step of steps) lines.push(`  ${step}`);
  return lines.join('\n');
}
