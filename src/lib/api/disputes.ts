// Customer disputes: one typed function per endpoint, multipart uploads for the file actions, and the
// buyer's side of the local server's control plane (opening a dispute).

import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { z } from 'zod';
import type { ApiClient } from './client.js';
import { UsageError } from './errors.js';
import { linkSchema, moneySchema, timestamps } from './types.js';

const documentSchema = z.looseObject({ name: z.string().optional(), url: z.string().optional() });

export const disputeSchema = z.looseObject({
  dispute_id: z.string(),
  ...timestamps,
  reason: z.string().optional(),
  status: z.string(),
  dispute_state: z.string().optional(),
  dispute_amount: moneySchema.optional(),
  dispute_life_cycle_stage: z.string().optional(),
  dispute_outcome: z.looseObject({ outcome_code: z.string().optional(), amount_refunded: moneySchema.optional() }).optional(),
  seller_response_due_date: z.string().optional(),
  buyer_response_due_date: z.string().optional(),
  disputed_transactions: z
    .array(
      z.looseObject({
        seller_transaction_id: z.string().optional(),
        buyer_transaction_id: z.string().optional(),
        transaction_status: z.string().optional(),
        gross_amount: moneySchema.optional(),
        create_time: z.string().optional(),
      }),
    )
    .optional(),
  messages: z
    .array(z.looseObject({ posted_by: z.string().optional(), time_posted: z.string().optional(), content: z.string().optional(), documents: z.array(documentSchema).optional() }))
    .optional(),
  evidences: z
    .array(
      z.looseObject({
        evidence_type: z.string().optional(),
        source: z.string().optional(),
        date: z.string().optional(),
        notes: z.string().optional(),
        dispute_life_cycle_stage: z.string().optional(),
        documents: z.array(documentSchema).optional(),
        evidence_info: z
          .looseObject({
            tracking_info: z.array(z.looseObject({ carrier_name: z.string().optional(), tracking_number: z.string().optional() })).optional(),
            refund_ids: z.array(z.string()).optional(),
          })
          .optional(),
      }),
    )
    .optional(),
  offer: z
    .looseObject({
      offer_type: z.string().optional(),
      seller_offered_amount: moneySchema.optional(),
      history: z
        .array(
          z.looseObject({
            offer_time: z.string().optional(),
            actor: z.string().optional(),
            event_type: z.string().optional(),
            offer_type: z.string().optional(),
            offer_amount: moneySchema.optional(),
            notes: z.string().optional(),
          }),
        )
        .optional(),
    })
    .optional(),
  adjudications: z.array(z.looseObject({ type: z.string().optional(), adjudication_time: z.string().optional(), dispute_life_cycle_stage: z.string().optional() })).optional(),
  money_movements: z
    .array(z.looseObject({ type: z.string().optional(), amount: moneySchema.optional(), initiated_time: z.string().optional(), affected_party: z.string().optional() }))
    .optional(),
  refund_details: z.looseObject({ allowed_refund_amount: moneySchema.optional() }).optional(),
  allowed_response_options: z
    .looseObject({
      accept_claim: z.looseObject({ accept_claim_types: z.array(z.string()).optional() }).optional(),
      make_offer: z.looseObject({ offer_types: z.array(z.string()).optional() }).optional(),
      acknowledge_return_item: z.looseObject({ acknowledgement_types: z.array(z.string()).optional() }).optional(),
    })
    .optional(),
  links: z.array(linkSchema).default([]),
});
export type Dispute = z.infer<typeof disputeSchema>;

const disputeListSchema = z.looseObject({ items: z.array(disputeSchema).default([]), links: z.array(linkSchema).default([]) });
export type DisputeList = z.infer<typeof disputeListSchema>;

/** Checks the shape but hands back the service's JSON untouched (key order included), for --json. */
function checked<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  schema.parse(body);
  return body as z.output<S>;
}

const REPRESENTATION = 'return=representation';
const disputePath = (id: string) => `/v1/customer/disputes/${encodeURIComponent(id)}`;

// --- files ---

export interface EvidenceFile {
  name: string;
  contentType: string;
  bytes: Uint8Array;
}

const CONTENT_TYPES: Record<string, string> = {
  '.pdf': 'application/pdf',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.png': 'image/png',
};

/** Reads a file to upload; its type comes from the extension (the server checks the bytes). */
export async function loadEvidenceFile(path: string): Promise<EvidenceFile> {
  const contentType = CONTENT_TYPES[extname(path).toLowerCase()];
  if (!contentType) throw new UsageError(`--file ${path}: only .pdf, .jpg, .jpeg, .gif and .png files can be sent`);
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new UsageError(`--file ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  return { name: basename(path), contentType, bytes };
}

/** multipart/form-data: the JSON `input` part, then one `evidence-file` part per file. */
export function multipartBody(input: unknown, files: readonly EvidenceFile[]): { body: Buffer; contentType: string } {
  const boundary = `payctl-${randomBytes(12).toString('hex')}`;
  const quoted = (text: string) => text.replace(/[\r\n]/g, ' ').replace(/"/g, '%22');
  const chunks: Buffer[] = [
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="input"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(input)}\r\n`),
  ];
  for (const file of files) {
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="evidence-file"; filename="${quoted(file.name)}"\r\nContent-Type: ${file.contentType}\r\n\r\n`),
      Buffer.from(file.bytes),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

interface ActionOptions {
  requestId?: string;
  files?: readonly EvidenceFile[];
}

/** An action: JSON without files, multipart with them; answers the dispute as it now is. */
async function act(client: ApiClient, id: string, action: string, input: unknown, options: ActionOptions): Promise<Dispute> {
  const files = options.files ?? [];
  const common = { method: 'POST', path: `${disputePath(id)}/${action}`, prefer: REPRESENTATION, requestId: options.requestId };
  if (files.length === 0) return checked(disputeSchema, (await client.request({ ...common, body: input })).body);
  const { body, contentType } = multipartBody(input, files);
  const response = await client.request({ ...common, rawBody: body, headers: { 'content-type': contentType } });
  return checked(disputeSchema, response.body);
}

// --- endpoints ---

export interface ListOptions {
  transactionId?: string;
  states?: readonly string[];
  startTime?: string;
  pageSize?: number;
  nextPageToken?: string;
}

/** GET /v1/customer/disputes: one page, newest first. */
export async function listDisputes(client: ApiClient, options: ListOptions = {}): Promise<DisputeList> {
  const response = await client.request({
    method: 'GET',
    path: '/v1/customer/disputes',
    query: {
      disputed_transaction_id: options.transactionId,
      dispute_state: options.states && options.states.length > 0 ? options.states.join(',') : undefined,
      start_time: options.startTime,
      page_size: options.pageSize,
      next_page_token: options.nextPageToken,
    },
  });
  return checked(disputeListSchema, response.body);
}

/** The token of the page after this one, if there is one. */
export function nextPageToken(page: DisputeList): string | undefined {
  const next = page.links.find((link) => link.rel === 'next');
  if (!next) return undefined;
  try {
    return new URL(next.href).searchParams.get('next_page_token') ?? undefined;
  } catch {
    return undefined;
  }
}

export async function getDispute(client: ApiClient, id: string): Promise<Dispute> {
  return checked(disputeSchema, (await client.request({ method: 'GET', path: disputePath(id) })).body);
}

export const sendMessage = (client: ApiClient, id: string, input: { message: string }, options: ActionOptions = {}) =>
  act(client, id, 'send-message', input, options);

export const makeOffer = (client: ApiClient, id: string, input: Record<string, unknown>, options: ActionOptions = {}) =>
  act(client, id, 'make-offer', input, options);

export const acceptClaim = (client: ApiClient, id: string, input: Record<string, unknown>, options: ActionOptions = {}) =>
  act(client, id, 'accept-claim', input, options);

export const provideEvidence = (client: ApiClient, id: string, input: { evidences: unknown[] }, options: ActionOptions = {}) =>
  act(client, id, 'provide-evidence', input, options);

export const escalateDispute = (client: ApiClient, id: string, input: { note: string }, options: ActionOptions = {}) =>
  act(client, id, 'escalate', input, options);

export const appealDispute = (client: ApiClient, id: string, input: { evidences: unknown[] }, options: ActionOptions = {}) =>
  act(client, id, 'appeal', input, options);

export const acknowledgeReturnItem = (client: ApiClient, id: string, input: Record<string, unknown>, options: ActionOptions = {}) =>
  act(client, id, 'acknowledge-return-item', input, options);

export const provideSupportingInfo = (client: ApiClient, id: string, input: { notes?: string }, options: ActionOptions = {}) =>
  act(client, id, 'provide-supporting-info', input, options);

/** PATCH of the seller's communication details (answers 204); returns the dispute as it now is. */
export async function updateCommunicationDetails(
  client: ApiClient,
  id: string,
  details: { email?: string; note?: string },
  options: { requestId?: string } = {},
): Promise<Dispute> {
  const body = [{ op: 'add', path: '/communication_details', value: details }];
  await client.request({ method: 'PATCH', path: disputePath(id), body, requestId: options.requestId });
  return getDispute(client, id);
}

/** POST /_payctl/disputes: opens a dispute on one of your captures as its buyer would (local server only). */
export async function openSandboxDispute(
  client: ApiClient,
  input: { disputed_transaction_id: string; reason: string; amount?: { currency_code: string; value: string }; message?: string },
  options: { requestId?: string } = {},
): Promise<Dispute> {
  const response = await client.request({ method: 'POST', path: '/_payctl/disputes', body: input, requestId: options.requestId });
  return checked(disputeSchema, response.body);
}
