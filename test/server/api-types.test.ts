// The server's answer types against the CLI client's and the published API. Each is declared once
// on its side (the server's next to its presenter or in its domain's types.ts, the client's as the
// zod schema it parses with). Two checks, both made by the type check (`npm run typecheck` compiles
// this file): the server's type must fit what the client expects (a field the client needs that
// the server stopped giving, or gives in another shape, fails), and it may name only the fields the
// published schema names (a misspelt or invented field, or an untyped bag, fails).

import { describe, expect, it } from 'vitest';
import type * as audit from '../../src/lib/api/audit.js';
import type * as auth from '../../src/lib/api/auth.js';
import type * as disputes from '../../src/lib/api/disputes.js';
import type * as invoices from '../../src/lib/api/invoices.js';
import type * as orders from '../../src/lib/api/orders.js';
import type * as payments from '../../src/lib/api/payments.js';
import type * as payouts from '../../src/lib/api/payouts.js';
import type * as reporting from '../../src/lib/api/reporting.js';
import type * as sandbox from '../../src/lib/api/sandbox.js';
import type * as templates from '../../src/lib/api/templates.js';
import type * as lookups from '../../src/lib/api/webhook-lookups.js';
import type * as webhooks from '../../src/lib/api/webhooks.js';
import type { AuditResult } from '../../src/server/audit/service.js';
import type { EventEnvelope } from '../../src/server/core/events.js';
import type { DisputeResource, DisputeSummary } from '../../src/server/disputes/render.js';
import type * as disputeParts from '../../src/server/disputes/types.js';
import type { Link } from '../../src/server/http/links.js';
import type { FaultRule } from '../../src/server/faults/service.js';
import type { InvoiceMetadata, InvoiceResource } from '../../src/server/invoicing/resource.js';
import type { TemplateList, TemplateResource } from '../../src/server/invoicing/templates.js';
import type * as invoiceParts from '../../src/server/invoicing/types.js';
import type { JournalEntry } from '../../src/server/journal/service.js';
import type { LookupView } from '../../src/server/notifications/lookups.js';
import type { EventTypeView, WebhookView } from '../../src/server/notifications/service.js';
import type { JournalDetail, JournalPage } from '../../src/server/journal/types.js';
import type { AccountCredentials } from '../../src/server/oauth/api.js';
import type * as orderParts from '../../src/server/orders/present.js';
import type { CardSourceResponse, Order, OrderPayer, PersonName, PortableAddress } from '../../src/server/orders/present.js';
import type { Tracker } from '../../src/server/orders/trackers.js';
import type { Authorization, Capture, Refund } from '../../src/server/payments/present.js';
import type {
  PayoutBatchHeader,
  PayoutBatchHeaderBody,
  PayoutBatchResource,
  PayoutItemDetail,
  PayoutItemError,
  PayoutItemResource,
} from '../../src/server/payouts/resources.js';
import type * as reports from '../../src/server/reporting/types.js';
import type { ClockView } from '../../src/server/sandbox/service.js';
import type * as control from '../../src/server/sandbox/types.js';

/** The fields a client type names, at every depth (its zod looseObjects also accept any other field). */
type Named<T> = T extends readonly (infer E)[]
  ? Named<E>[]
  : T extends object
    ? { [K in keyof T as string extends K ? never : K]: Named<T[K]> }
    : T;

/** Compiles only when Server is assignable to Client. */
const fits =
  <Client>() =>
  <Server extends Client>(): true =>
    true;

/**
 * Compiles only when every field of Server is one of Names (the published schema's field names,
 * copied from /work/shared/reference/openapi/*.json). A field outside them makes the call want an
 * argument naming it; an index signature (`Record<string, unknown>`) fails too, since its keys are
 * every string.
 */
const onlyPublished =
  <Names extends string>() =>
  <Server extends object>(..._unexpected: [Exclude<keyof Server, Names>] extends [never] ? [] : [unexpected: Exclude<keyof Server, Names>]): true =>
    true;

describe("the server's answer types fit the CLI client's", () => {
  it('payments: authorization, capture, refund', () => {
    expect(fits<Named<payments.Authorization>>()<Authorization>()).toBe(true);
    expect(fits<Named<payments.Capture>>()<Capture>()).toBe(true);
    expect(fits<Named<payments.Refund>>()<Refund>()).toBe(true);
  });

  it('orders and trackers', () => {
    expect(fits<Named<orders.Order>>()<Order>()).toBe(true);
    expect(fits<Named<orders.Tracker>>()<Tracker>()).toBe(true);
  });

  it('disputes', () => {
    expect(fits<Named<disputes.Dispute>>()<DisputeResource>()).toBe(true);
    expect(fits<Named<disputes.DisputeList>>()<{ items: DisputeSummary[]; links: Link[] }>()).toBe(true);
  });

  it('payouts: batch header and batch', () => {
    expect(fits<Named<payouts.PayoutBatchHeader>>()<PayoutBatchHeader>()).toBe(true);
    expect(fits<Named<payouts.PayoutBatch>>()<Omit<PayoutBatchResource, 'items'>>()).toBe(true);
  });

  it('payouts: items, the batch with its items, the create answer', () => {
    expect(fits<Named<payouts.PayoutItem>>()<PayoutItemResource>()).toBe(true);
    expect(fits<Named<payouts.PayoutBatch>>()<PayoutBatchResource>()).toBe(true);
    expect(fits<Named<payouts.CreatedPayoutBatch>>()<PayoutBatchHeaderBody>()).toBe(true);
  });

  it('invoices and templates', () => {
    expect(fits<Named<invoices.Invoice>>()<InvoiceResource>()).toBe(true);
    expect(fits<Named<templates.Template>>()<TemplateResource>()).toBe(true);
    expect(fits<Named<templates.TemplateList>>()<TemplateList>()).toBe(true);
  });

  it('events carry the presented resource', () => {
    expect(fits<Named<webhooks.WebhookEvent>>()<EventEnvelope>()).toBe(true);
    expect(fits<Named<webhooks.WebhookEvent>>()<EventEnvelope<Order>>()).toBe(true);
    expect(fits<Named<webhooks.WebhookEvent>>()<EventEnvelope<Capture>>()).toBe(true);
    expect(fits<Named<webhooks.WebhookEvent>>()<EventEnvelope<{ invoice: InvoiceResource }>>()).toBe(true);
    expect(fits<Named<webhooks.WebhookEvent>>()<EventEnvelope<DisputeResource>>()).toBe(true);
    expect(fits<Named<webhooks.WebhookEvent>>()<EventEnvelope<PayoutItemResource>>()).toBe(true);
    expect(fits<Named<webhooks.WebhookEvent>>()<EventEnvelope<PayoutBatchHeaderBody>>()).toBe(true);
    expect(fits<Named<webhooks.WebhookEventList>>()<{ events: EventEnvelope[]; count: number; links: Link[] }>()).toBe(true);
  });

  it('webhook subscriptions and lookups', () => {
    expect(fits<Named<webhooks.Webhook>>()<WebhookView>()).toBe(true);
    expect(fits<Named<webhooks.WebhookList>>()<{ webhooks: WebhookView[] }>()).toBe(true);
    expect(fits<Named<webhooks.EventTypeList>>()<{ event_types: EventTypeView[] }>()).toBe(true);
    expect(fits<Named<lookups.WebhookLookup>>()<LookupView>()).toBe(true);
    expect(fits<Named<lookups.WebhookLookupList>>()<{ webhooks_lookups: LookupView[] }>()).toBe(true);
  });

  it('reporting: a transaction detail, the balances', () => {
    expect(fits<Named<reporting.TransactionDetail>>()<reports.TransactionDetail>()).toBe(true);
    // transaction_details is left out of an empty search; the client defaults it to [].
    expect(fits<Named<Omit<reporting.TransactionPage, 'transaction_details'>>>()<reports.TransactionSearch>()).toBe(true);
    expect(fits<Named<reporting.Balances>>()<reports.BalancesResponse>()).toBe(true);
  });

  it('the control plane and the audit', () => {
    expect(fits<Named<sandbox.SandboxAccount>>()<AccountCredentials>()).toBe(true);
    expect(fits<Named<sandbox.Consent>>()<control.ConsentGrant>()).toBe(true);
    expect(fits<Named<sandbox.SandboxClock>>()<ClockView>()).toBe(true);
    expect(fits<Named<sandbox.ResetResult>>()<control.ResetResult>()).toBe(true);
    expect(fits<Named<auth.Whoami>>()<control.Whoami>()).toBe(true);
    expect(fits<Named<audit.AuditReport>>()<AuditResult>()).toBe(true);
    expect(fits<Named<sandbox.JournalPage>>()<JournalPage>()).toBe(true);
    expect(fits<Named<sandbox.JournalDetail>>()<JournalEntry & JournalDetail>()).toBe(true);
    expect(fits<Named<sandbox.FaultRule>>()<FaultRule>()).toBe(true);
  });
});

describe('the server names only the fields the published schemas name', () => {
  it('payments (payments_payment_v2.json)', () => {
    type AuthorizationFields = 'supplementary_data' | 'payee' | 'create_time' | 'update_time' | 'id' | 'amount' | 'invoice_id' | 'custom_id' | 'network_transaction_reference' | 'seller_protection' | 'expiration_time' | 'links' | 'status' | 'status_details';
    expect(onlyPublished<AuthorizationFields>()<Authorization>()).toBe(true);
    type CaptureFields = AuthorizationFields | 'final_capture' | 'seller_receivable_breakdown' | 'disbursement_mode' | 'processor_response';
    expect(onlyPublished<Exclude<CaptureFields, 'expiration_time'>>()<Capture>()).toBe(true);
    type RefundFields = 'create_time' | 'update_time' | 'id' | 'amount' | 'invoice_id' | 'custom_id' | 'acquirer_reference_number' | 'note_to_payer' | 'seller_payable_breakdown' | 'payer' | 'links' | 'status' | 'status_details';
    expect(onlyPublished<RefundFields>()<Refund>()).toBe(true);
    expect(onlyPublished<'order_id' | 'authorization_id' | 'capture_id'>()<Capture['supplementary_data']['related_ids']>()).toBe(true);
    expect(onlyPublished<'order_id' | 'authorization_id' | 'capture_id'>()<Authorization['supplementary_data']['related_ids']>()).toBe(true);
    // breakdown: the amount's parts as the order gave them (a payctl addition to the money object).
    expect(onlyPublished<'currency_code' | 'value' | 'breakdown'>()<Capture['amount']>()).toBe(true);
  });

  it('invoicing (invoicing_v2.json)', () => {
    type Invoice = 'id' | 'parent_id' | 'status' | 'detail' | 'invoicer' | 'primary_recipients' | 'additional_recipients' | 'items' | 'configuration' | 'amount' | 'due_amount' | 'gratuity' | 'payments' | 'refunds' | 'links';
    expect(onlyPublished<Invoice>()<InvoiceResource>()).toBe(true);
    expect(onlyPublished<Invoice>()<invoiceParts.InvoiceSummary>()).toBe(true);
    type Detail = 'invoice_number' | 'invoice_date' | 'payment_term' | 'metadata' | 'reference' | 'currency_code' | 'note' | 'terms_and_conditions' | 'memo' | 'attachments';
    expect(onlyPublished<Detail>()<invoiceParts.InvoiceDetail>()).toBe(true);
    expect(onlyPublished<Detail>()<invoiceParts.InvoiceSummary['detail']>()).toBe(true);
    type Metadata = 'cancel_time' | 'cancelled_by' | 'first_sent_time' | 'last_sent_time' | 'last_sent_by' | 'created_by_flow' | 'recipient_view_url' | 'invoicer_view_url' | 'create_time' | 'created_by' | 'last_update_time' | 'last_updated_by';
    expect(onlyPublished<Metadata>()<InvoiceMetadata>()).toBe(true);
    type Item = 'id' | 'name' | 'description' | 'quantity' | 'unit_amount' | 'tax' | 'item_date' | 'discount' | 'unit_of_measure';
    expect(onlyPublished<Item>()<invoiceParts.InvoiceItem>()).toBe(true);
    // tax_note: a tax's note, kept as given and shown back (SPEC 2.6).
    expect(onlyPublished<'name' | 'percent' | 'amount' | 'tax_note'>()<invoiceParts.InvoiceTax>()).toBe(true);
    expect(onlyPublished<'percent' | 'amount'>()<invoiceParts.InvoiceDiscount>()).toBe(true);
    // has_conditional_rule: a template's configuration field, which an invoice's takes too.
    type Configuration = 'template_id' | 'tax_calculated_after_discount' | 'tax_inclusive' | 'allow_tip' | 'partial_payment' | 'has_conditional_rule';
    expect(onlyPublished<Configuration>()<invoiceParts.InvoiceConfiguration>()).toBe(true);
    expect(onlyPublished<'allow_partial_payment' | 'minimum_amount_due'>()<invoiceParts.InvoiceConfiguration['partial_payment']>()).toBe(true);
    expect(onlyPublished<'currency_code' | 'value' | 'breakdown'>()<invoiceParts.InvoiceAmount>()).toBe(true);
    expect(onlyPublished<'item_total' | 'discount' | 'tax_total' | 'shipping' | 'custom'>()<invoiceParts.AmountBreakdown>()).toBe(true);
    type Breakdown = invoiceParts.AmountBreakdown;
    expect(onlyPublished<'invoice_discount' | 'item_discount'>()<NonNullable<Breakdown['discount']>>()).toBe(true);
    expect(onlyPublished<'amount' | 'tax'>()<NonNullable<Breakdown['shipping']>>()).toBe(true);
    expect(onlyPublished<'label' | 'amount'>()<NonNullable<Breakdown['custom']>>()).toBe(true);
    expect(onlyPublished<'paid_amount' | 'transactions'>()<NonNullable<InvoiceResource['payments']>>()).toBe(true);
    expect(onlyPublished<'refund_amount' | 'transactions'>()<NonNullable<InvoiceResource['refunds']>>()).toBe(true);
    // payment_date_time: when the payment was recorded, to the second (a payctl addition).
    type Payment = 'type' | 'payment_id' | 'payment_date' | 'method' | 'note' | 'amount' | 'shipping_info' | 'payment_date_time';
    expect(onlyPublished<Payment>()<invoiceParts.InvoicePaymentDetail>()).toBe(true);
    expect(onlyPublished<'type' | 'refund_id' | 'refund_date' | 'amount' | 'method'>()<invoiceParts.InvoiceRefundDetail>()).toBe(true);
  });

  it('invoice templates (invoicing_v2.json)', () => {
    type Template = 'id' | 'name' | 'default_template' | 'template_info' | 'settings' | 'unit_of_measure' | 'standard_template' | 'links';
    expect(onlyPublished<Template>()<TemplateResource>()).toBe(true);
    expect(onlyPublished<'addresses' | 'emails' | 'phones' | 'templates' | 'links'>()<TemplateList>()).toBe(true);
    type Info = 'detail' | 'invoicer' | 'primary_recipients' | 'additional_recipients' | 'items' | 'configuration' | 'amount' | 'due_amount';
    expect(onlyPublished<Info>()<invoiceParts.TemplateInfo>()).toBe(true);
    type Detail = 'payment_term' | 'metadata' | 'reference' | 'currency_code' | 'note' | 'terms_and_conditions' | 'memo' | 'attachments';
    expect(onlyPublished<Detail>()<invoiceParts.TemplateDetail>()).toBe(true);
    expect(onlyPublished<'create_time' | 'created_by' | 'last_update_time' | 'last_updated_by'>()<invoiceParts.TemplateDetail['metadata']>()).toBe(true);
    expect(onlyPublished<'template_item_settings' | 'template_subtotal_settings'>()<invoiceParts.TemplateSettings>()).toBe(true);
  });

  it('payouts (payments_payouts_batch_v1.json)', () => {
    type Item = 'payout_item_id' | 'transaction_id' | 'activity_id' | 'transaction_status' | 'payout_item_fee' | 'payout_batch_id' | 'sender_batch_id' | 'payout_item' | 'currency_conversion' | 'time_processed' | 'errors' | 'links';
    expect(onlyPublished<Item>()<PayoutItemResource>()).toBe(true);
    type Detail = 'recipient_type' | 'amount' | 'note' | 'receiver' | 'sender_item_id' | 'recipient_name' | 'recipient_wallet' | 'purpose';
    expect(onlyPublished<Detail>()<PayoutItemDetail>()).toBe(true);
    expect(onlyPublished<'name' | 'message' | 'debug_id' | 'information_link' | 'details' | 'links'>()<PayoutItemError>()).toBe(true);
    type Header = 'payout_batch_id' | 'batch_status' | 'time_created' | 'time_completed' | 'time_closed' | 'sender_batch_header' | 'funding_source' | 'amount' | 'fees';
    expect(onlyPublished<Header>()<PayoutBatchHeader>()).toBe(true);
    expect(onlyPublished<'total_items' | 'total_pages' | 'batch_header' | 'items' | 'links'>()<PayoutBatchResource>()).toBe(true);
    expect(onlyPublished<'total_items' | 'total_pages' | 'batch_header' | 'items' | 'links'>()<PayoutBatchHeaderBody>()).toBe(true);
  });

  it('disputes (customer_disputes_v1.json)', () => {
    type Dispute = 'dispute_id' | 'create_time' | 'update_time' | 'disputed_transactions' | 'reason' | 'status' | 'dispute_amount' | 'dispute_asset' | 'fee_policy' | 'external_reason_code' | 'dispute_outcome' | 'adjudications' | 'money_movements' | 'dispute_life_cycle_stage' | 'dispute_channel' | 'messages' | 'extensions' | 'evidences' | 'buyer_response_due_date' | 'seller_response_due_date' | 'offer' | 'refund_details' | 'communication_details' | 'supporting_info' | 'allowed_response_options' | 'links';
    expect(onlyPublished<Dispute>()<DisputeResource>()).toBe(true);
    type Info = 'dispute_id' | 'create_time' | 'update_time' | 'reason' | 'status' | 'dispute_state' | 'dispute_amount' | 'dispute_asset' | 'dispute_life_cycle_stage' | 'dispute_channel' | 'buyer_response_due_date' | 'seller_response_due_date' | 'links';
    expect(onlyPublished<Info>()<DisputeSummary>()).toBe(true);
    type Transaction = 'buyer_transaction_id' | 'seller_transaction_id' | 'reference_id' | 'create_time' | 'transaction_status' | 'gross_amount' | 'gross_asset' | 'invoice_number' | 'custom' | 'buyer' | 'seller' | 'items' | 'payment_processor';
    expect(onlyPublished<Transaction>()<disputeParts.DisputedTransaction>()).toBe(true);
    expect(onlyPublished<'name'>()<disputeParts.DisputedTransaction['buyer']>()).toBe(true);
    expect(onlyPublished<'email' | 'merchant_id' | 'name'>()<disputeParts.DisputedTransaction['seller']>()).toBe(true);
    expect(onlyPublished<'posted_by' | 'time_posted' | 'content' | 'documents'>()<disputeParts.DisputeMessage>()).toBe(true);
    expect(onlyPublished<'name' | 'url'>()<disputeParts.DisputeDocument>()).toBe(true);
    type Evidence = 'evidence_type' | 'evidence_info' | 'documents' | 'notes' | 'source' | 'date' | 'item_id' | 'item_type' | 'action_info' | 'dispute_life_cycle_stage';
    expect(onlyPublished<Evidence>()<disputeParts.DisputeEvidence>()).toBe(true);
    expect(onlyPublished<'action' | 'response_option' | 'mandatory'>()<NonNullable<disputeParts.DisputeEvidence['action_info']>>()).toBe(true);
    expect(onlyPublished<'notes' | 'documents' | 'source' | 'provided_time' | 'dispute_life_cycle_stage'>()<disputeParts.DisputeSupportingInfo>()).toBe(true);
    expect(onlyPublished<'buyer_requested_amount' | 'seller_offered_amount' | 'offer_type' | 'history'>()<disputeParts.DisputeOffer>()).toBe(true);
    type History = 'offer_time' | 'actor' | 'event_type' | 'offer_type' | 'offer_amount' | 'notes' | 'dispute_life_cycle_stage';
    expect(onlyPublished<History>()<disputeParts.OfferHistoryEntry>()).toBe(true);
    expect(onlyPublished<'type' | 'adjudication_time' | 'reason' | 'dispute_life_cycle_stage'>()<disputeParts.DisputeAdjudication>()).toBe(true);
    expect(onlyPublished<'affected_party' | 'amount' | 'asset' | 'initiated_time' | 'type' | 'reason'>()<disputeParts.DisputeMoneyMovement>()).toBe(true);
    expect(onlyPublished<'acknowledge_return_item' | 'accept_claim' | 'make_offer'>()<disputeParts.AllowedResponseOptions>()).toBe(true);
    expect(onlyPublished<'outcome_code' | 'amount_refunded' | 'asset_refunded'>()<disputeParts.DisputeOutcome>()).toBe(true);
    expect(onlyPublished<'email' | 'note' | 'time_posted'>()<disputeParts.DisputeCommunicationDetails>()).toBe(true);
    expect(onlyPublished<'allowed_refund_amount'>()<NonNullable<DisputeResource['refund_details']>>()).toBe(true);
  });

  it('orders (checkout_orders_v2.json)', () => {
    type OrderFields = 'id' | 'payment_source' | 'intent' | 'processing_instruction' | 'payer' | 'purchase_units' | 'status' | 'links' | 'create_time' | 'update_time';
    expect(onlyPublished<OrderFields>()<Order>()).toBe(true);
    expect(onlyPublished<'name' | 'phone' | 'birth_date' | 'tax_info' | 'address' | 'email_address' | 'payer_id'>()<OrderPayer>()).toBe(true);
    expect(onlyPublished<'prefix' | 'given_name' | 'surname' | 'middle_name' | 'suffix' | 'alternate_full_name' | 'full_name'>()<PersonName>()).toBe(true);
    type Address = 'address_line_1' | 'address_line_2' | 'address_line_3' | 'admin_area_4' | 'admin_area_3' | 'admin_area_2' | 'admin_area_1' | 'postal_code' | 'country_code' | 'address_details';
    expect(onlyPublished<Address>()<PortableAddress>()).toBe(true);
    type Card = 'name' | 'last_digits' | 'brand' | 'available_networks' | 'type' | 'authentication_result' | 'attributes' | 'from_request' | 'expiry' | 'bin_details';
    expect(onlyPublished<Card>()<CardSourceResponse>()).toBe(true);
    type Unit = 'reference_id' | 'amount' | 'payee' | 'payment_instruction' | 'description' | 'custom_id' | 'invoice_id' | 'id' | 'soft_descriptor' | 'items' | 'shipping' | 'supplementary_data' | 'payments';
    expect(onlyPublished<Unit>()<orderParts.OrderUnit>()).toBe(true);
    expect(onlyPublished<'breakdown' | 'currency_code' | 'value'>()<orderParts.OrderAmount>()).toBe(true);
    // gratuity: a breakdown part the payments schema takes (payments/schema.ts BREAKDOWN_PARTS).
    type Breakdown = 'item_total' | 'shipping' | 'handling' | 'tax_total' | 'insurance' | 'shipping_discount' | 'discount' | 'gratuity';
    expect(onlyPublished<Breakdown>()<NonNullable<orderParts.OrderAmount['breakdown']>>()).toBe(true);
    expect(onlyPublished<'email_address' | 'merchant_id'>()<orderParts.OrderUnit['payee']>()).toBe(true);
    expect(onlyPublished<'name' | 'unit_amount' | 'tax' | 'quantity' | 'description' | 'sku' | 'category'>()<orderParts.OrderItem>()).toBe(true);
    expect(onlyPublished<'trackers' | 'name' | 'type' | 'options' | 'address'>()<orderParts.OrderShipping>()).toBe(true);
    type Instruction = 'platform_fees' | 'disbursement_mode' | 'payee_pricing_tier_id' | 'payee_receivable_fx_rate_id';
    expect(onlyPublished<Instruction>()<orderParts.PaymentInstruction>()).toBe(true);
    // airline: a PATCH may set it (orders/patch.ts), though the published file names only card.
    expect(onlyPublished<'card' | 'airline'>()<orderParts.SupplementaryData>()).toBe(true);
  });

  it('events (notifications_webhooks_v1.json)', () => {
    type Event = 'id' | 'create_time' | 'resource_type' | 'event_version' | 'event_type' | 'summary' | 'resource_version' | 'resource' | 'links';
    expect(onlyPublished<Event>()<EventEnvelope<Order>>()).toBe(true);
    expect(onlyPublished<'id' | 'url' | 'event_types' | 'links'>()<WebhookView>()).toBe(true);
    expect(onlyPublished<'name' | 'description' | 'status' | 'resource_versions'>()<EventTypeView>()).toBe(true);
    expect(onlyPublished<'id' | 'client_id' | 'links'>()<LookupView>()).toBe(true);
  });

  it('reporting (reporting_transactions_v1.json)', () => {
    type Search = 'transaction_details' | 'account_number' | 'start_date' | 'end_date' | 'last_refreshed_datetime' | 'page' | 'total_items' | 'total_pages' | 'links';
    expect(onlyPublished<Search>()<reports.TransactionSearch>()).toBe(true);
    type Detail = 'transaction_info' | 'payer_info' | 'shipping_info' | 'cart_info' | 'store_info' | 'auction_info' | 'incentive_info';
    expect(onlyPublished<Detail>()<reports.TransactionDetail>()).toBe(true);
    type Info =
      | 'paypal_account_id' | 'transaction_id' | 'paypal_reference_id' | 'paypal_reference_id_type' | 'transaction_event_code'
      | 'transaction_initiation_date' | 'transaction_updated_date' | 'transaction_amount' | 'fee_amount' | 'discount_amount'
      | 'insurance_amount' | 'sales_tax_amount' | 'shipping_amount' | 'shipping_discount_amount' | 'shipping_tax_amount'
      | 'other_amount' | 'tip_amount' | 'transaction_status' | 'transaction_subject' | 'transaction_note' | 'payment_tracking_id'
      | 'bank_reference_id' | 'ending_balance' | 'available_balance' | 'invoice_id' | 'custom_field' | 'protection_eligibility'
      | 'credit_term' | 'credit_transactional_fee' | 'credit_promotional_fee' | 'annual_percentage_rate' | 'payment_method_type'
      | 'instrument_type' | 'instrument_sub_type';
    expect(onlyPublished<Info>()<reports.TransactionInfo>()).toBe(true);
    type Payer = 'account_id' | 'email_address' | 'phone_number' | 'address_status' | 'payer_status' | 'payer_name' | 'country_code' | 'address';
    expect(onlyPublished<Payer>()<reports.PayerInfo>()).toBe(true);
    expect(onlyPublished<'name' | 'method' | 'address' | 'secondary_shipping_address'>()<reports.ShippingInfo>()).toBe(true);
    expect(onlyPublished<'line1' | 'line2' | 'city' | 'state' | 'country_code' | 'postal_code'>()<reports.ReportAddress>()).toBe(true);
    expect(onlyPublished<'item_details' | 'tax_inclusive' | 'paypal_invoice_id'>()<reports.CartInfo>()).toBe(true);
    type Item = 'item_code' | 'item_name' | 'item_description' | 'item_options' | 'item_quantity' | 'item_unit_price' | 'item_amount';
    expect(onlyPublished<Item>()<reports.CartItemDetail>()).toBe(true);
    expect(onlyPublished<'balances' | 'account_id' | 'as_of_time' | 'last_refresh_time'>()<reports.BalancesResponse>()).toBe(true);
    expect(onlyPublished<'currency' | 'primary' | 'total_balance' | 'available_balance' | 'withheld_balance'>()<reports.BalanceDetail>()).toBe(true);
  });

  it('the checks fail on a field the schema does not name, and on an untyped bag (the controls)', () => {
    // @ts-expect-error a misspelt field
    expect(onlyPublished<'payout_item_id' | 'links'>()<{ payout_item_id: string; link: Link[] }>()).toBe(true);
    // @ts-expect-error an untyped bag: its keys are every string
    expect(onlyPublished<'payout_item_id'>()<Record<string, unknown>>()).toBe(true);
    // @ts-expect-error a field of another shape than the client's (transaction_id was string | null)
    expect(fits<Named<payouts.PayoutItem>>()<Omit<PayoutItemResource, 'transaction_id'> & { transaction_id?: string | null }>()).toBe(true);
    // @ts-expect-error a resource the client cannot read as an object
    expect(fits<Named<webhooks.WebhookEvent>>()<Omit<EventEnvelope, 'resource'> & { resource: unknown }>()).toBe(true);
  });
});
