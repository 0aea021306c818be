// Invoice templates: the three system templates every merchant has, and merchant-made ones.

import { z } from 'zod';
import { isoSeconds } from '../core/clock.js';
import type { ServerDeps, ServiceContext } from '../core/deps.js';
import { prefixedId, type IdGenerator } from '../core/ids.js';
import { lockAccount } from '../db/account-lock.js';
import type { Queryable } from '../db/schema.js';
import { serviceError } from '../http/errors.js';
import { link, type Link } from '../http/links.js';
import type { TemplateInput } from './schema.js';
import type { TemplateInfo, TemplateSettings } from './types.js';
import * as store from './store.js';

/** Merchant-made templates an account may keep (the system ones do not count). */
export const MAX_MERCHANT_TEMPLATES = 50;

const storedBodySchema = z.object({
  template_info: z.record(z.string(), z.unknown()).optional(),
  settings: z.record(z.string(), z.unknown()).optional(),
  unit_of_measure: z.string().optional(),
});
type StoredBody = z.infer<typeof storedBodySchema>;

export interface TemplateResource {
  id: string;
  name: string;
  default_template: boolean;
  template_info: TemplateInfo;
  settings: TemplateSettings;
  unit_of_measure?: string;
  standard_template: boolean;
  links: Link[];
}

function parseStored(text: string): StoredBody {
  return storedBodySchema.parse(JSON.parse(text));
}

export function templateResource(row: store.TemplateRow, baseUrl: string): TemplateResource {
  const body = parseStored(row.body);
  const info = { ...(body.template_info ?? {}) };
  const detail = (info.detail ?? {}) as Record<string, unknown>;
  info.detail = { ...detail, metadata: { create_time: row.create_time, last_update_time: row.update_time } };
  const path = `/v2/invoicing/templates/${row.id}`;
  const resource: TemplateResource = {
    id: row.id,
    name: row.name,
    default_template: row.is_default === 1n,
    // The stored body was written from a parsed TemplateInput (storedBody) or by the seeding.
    template_info: info as TemplateInfo,
    settings: (body.settings ?? {}) as TemplateSettings,
    standard_template: row.is_standard === 1n,
    links: [link(baseUrl, path, 'self', 'GET'), link(baseUrl, path, 'replace', 'PUT')],
  };
  // Only actions that can succeed: a system template cannot be deleted (CANNOT_DELETE_GLOBAL_TEMPLATE).
  if (row.is_standard !== 1n) resource.links.push(link(baseUrl, path, 'delete', 'DELETE'));
  if (body.unit_of_measure !== undefined) resource.unit_of_measure = body.unit_of_measure;
  return resource;
}

const visible = (fields: readonly string[]) => fields.map((field_name) => ({ field_name, display_preference: { hidden: false } }));

function systemTemplates(): Array<{ name: string; unit: string; hideQuantity: boolean }> {
  return [
    { name: 'Quantity', unit: 'QUANTITY', hideQuantity: false },
    { name: 'Hours', unit: 'HOURS', hideQuantity: false },
    { name: 'Amount', unit: 'AMOUNT', hideQuantity: true },
  ];
}

/** Seeds the three system templates unless the account has them (idempotent). */
export async function ensureSystemTemplates(db: Queryable, ids: IdGenerator, accountId: string, now: Date): Promise<void> {
  if ((await store.countTemplates(db, accountId, true)) > 0) return;
  // Seeding reads the account's names, then inserts: under the account's lock, counted again (two
  // first reads at once, on two replicas: the second finds the first's templates and stops here).
  await lockAccount(db, accountId);
  if ((await store.countTemplates(db, accountId, true)) > 0) return;
  const account = await db.selectFrom('accounts').select('email').where('id', '=', accountId).executeTakeFirst();
  if (!account) return;
  const time = isoSeconds(now);
  const hasDefault = (await db
    .selectFrom('invoice_templates')
    .select('id')
    .where('account_id', '=', accountId)
    .where('is_default', '=', 1n)
    .executeTakeFirst()) !== undefined;
  // Sorted ids keep the three in their usual order within the same creation second.
  const systemIds = systemTemplates().map(() => prefixedId(ids, 'TEMP', 17)).sort();
  for (const [index, template] of systemTemplates().entries()) {
    const itemFields = ['ITEMS_QUANTITY', 'ITEMS_DESCRIPTION', 'ITEMS_DATE', 'ITEMS_DISCOUNT', 'ITEMS_TAX'];
    const body: StoredBody = {
      template_info: {
        detail: { currency_code: 'USD', payment_term: { term_type: 'DUE_ON_RECEIPT' } },
        invoicer: { email_address: account.email },
        configuration: {
          tax_calculated_after_discount: true,
          tax_inclusive: false,
          allow_tip: false,
          partial_payment: { allow_partial_payment: false },
        },
      },
      settings: {
        template_item_settings: itemFields.map((field_name) => ({
          field_name,
          display_preference: { hidden: template.hideQuantity && field_name === 'ITEMS_QUANTITY' },
        })),
        template_subtotal_settings: visible(['DISCOUNT', 'SHIPPING', 'CUSTOM']),
      },
      unit_of_measure: template.unit,
    };
    const taken = await store.findTemplateByName(db, accountId, template.name);
    // Should two seeders still meet, the second's rows are left out on the unique index (account,
    // name) instead of failing the read.
    await db
      .insertInto('invoice_templates')
      .values({
        id: systemIds[index] as string,
        account_id: accountId,
        name: taken ? `${template.name} (system)` : template.name,
        is_default: index === 0 && !hasDefault ? 1n : 0n,
        is_standard: 1n,
        body: JSON.stringify(body),
        create_time: time,
        update_time: time,
      })
      .onConflict((conflict) => conflict.columns(['account_id', 'name']).doNothing())
      .execute();
  }
}

/**
 * Seeds the system templates of every account that has none (one made before invoicing existed):
 * run once as the server starts, each account in its own transaction, so that no read has to.
 */
export async function seedMissingSystemTemplates(deps: ServerDeps): Promise<void> {
  const missing = await deps.db
    .selectFrom('accounts')
    .select('id')
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('invoice_templates').select('invoice_templates.id').whereRef('invoice_templates.account_id', '=', 'accounts.id').where('is_standard', '=', 1n))),
    )
    .execute();
  for (const { id } of missing) {
    await deps.storage.transaction({ name: 'invoicing.seed-templates' }, (trx) => ensureSystemTemplates(trx, deps.ids, id, deps.clock.now(id)));
  }
}

function storedBody(input: TemplateInput): string {
  const body: StoredBody = {};
  if (input.template_info !== undefined) body.template_info = input.template_info as Record<string, unknown>;
  if (input.settings !== undefined) body.settings = input.settings as Record<string, unknown>;
  if (input.unit_of_measure !== undefined) body.unit_of_measure = input.unit_of_measure;
  return JSON.stringify(body);
}

async function assertNameFree(db: Queryable, accountId: string, name: string, selfId: string | undefined): Promise<void> {
  const holder = await store.findTemplateByName(db, accountId, name);
  if (holder && holder.id !== selfId) {
    throw serviceError('INVALID_REQUEST', 'TEMPLATE_NAME_ALREADY_EXISTS', 'Template name already exists; a template name must be unique.', {
      field: '/name',
      value: name,
      location: 'body',
    });
  }
}

/** The caller's template, or 403 when it is another merchant's, or 404 when there is none. */
export async function ownTemplate(db: Queryable, accountId: string, id: string): Promise<store.TemplateRow> {
  const row = await store.findTemplate(db, accountId, id);
  if (row) return row;
  if (await store.templateExists(db, id)) {
    throw serviceError('NOT_AUTHORIZED', 'PERMISSION_DENIED', 'The template does not belong to the requesting merchant.', {
      field: 'template_id',
      value: id,
      location: 'path',
    });
  }
  throw serviceError('RESOURCE_NOT_FOUND', 'INVALID_RESOURCE_ID', 'Specified resource ID does not exist. Please check the resource ID and try again.', {
    field: 'template_id',
    value: id,
    location: 'path',
  });
}

// A merchant's template changes run under the account lock (db/account-lock.ts): the count limit,
// the name check and the one default template are each a check across rows, then a write.
export async function createTemplate(ctx: ServiceContext, input: TemplateInput): Promise<TemplateResource> {
  await lockAccount(ctx.db, ctx.accountId);
  await ensureSystemTemplates(ctx.db, ctx.deps.ids, ctx.accountId, ctx.now);
  await assertNameFree(ctx.db, ctx.accountId, input.name, undefined);
  if ((await store.countTemplates(ctx.db, ctx.accountId, false)) >= MAX_MERCHANT_TEMPLATES) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'TEMPLATE_LIMIT_REACHED', `A merchant can keep at most ${MAX_MERCHANT_TEMPLATES} templates.`);
  }
  const time = isoSeconds(ctx.now);
  const row: store.TemplateRow = {
    id: prefixedId(ctx.deps.ids, 'TEMP', 17),
    account_id: ctx.accountId,
    name: input.name,
    is_default: input.default_template ? 1n : 0n,
    is_standard: 0n,
    body: storedBody(input),
    create_time: time,
    update_time: time,
  };
  await store.insertTemplate(ctx.db, row);
  if (input.default_template) await store.clearDefaultTemplate(ctx.db, ctx.accountId, row.id);
  return templateResource(row, ctx.baseUrl);
}

/** Replaces the whole template: fields left out of the request are gone afterwards. */
export async function replaceTemplate(ctx: ServiceContext, id: string, input: TemplateInput): Promise<TemplateResource> {
  await lockAccount(ctx.db, ctx.accountId);
  await ensureSystemTemplates(ctx.db, ctx.deps.ids, ctx.accountId, ctx.now);
  const current = await ownTemplate(ctx.db, ctx.accountId, id);
  await assertNameFree(ctx.db, ctx.accountId, input.name, id);
  const row: store.TemplateRow = {
    ...current,
    name: input.name,
    is_default: input.default_template ? 1n : 0n,
    body: storedBody(input),
    update_time: isoSeconds(ctx.now),
  };
  await store.replaceTemplate(ctx.db, row);
  if (input.default_template) await store.clearDefaultTemplate(ctx.db, ctx.accountId, id);
  return templateResource(row, ctx.baseUrl);
}

export async function getTemplate(ctx: ServiceContext, id: string): Promise<TemplateResource> {
  return templateResource(await ownTemplate(ctx.db, ctx.accountId, id), ctx.baseUrl);
}

export async function deleteTemplate(ctx: ServiceContext, id: string): Promise<void> {
  const row = await ownTemplate(ctx.db, ctx.accountId, id);
  if (row.is_standard === 1n) {
    throw serviceError('NOT_AUTHORIZED', 'CANNOT_DELETE_GLOBAL_TEMPLATE', 'System templates cannot be deleted.', {
      field: 'template_id',
      value: id,
      location: 'path',
    });
  }
  await store.deleteTemplate(ctx.db, ctx.accountId, id);
}

export interface TemplateList {
  /** Always empty: an account keeps no addresses or phones for its invoices. */
  addresses: never[];
  emails: string;
  phones: never[];
  templates: Array<TemplateResource | Pick<TemplateResource, 'id' | 'name' | 'default_template'>>;
  links: Link[];
}

export async function listTemplates(
  ctx: ServiceContext,
  query: { page?: number; page_size?: number; fields?: string },
): Promise<TemplateList> {
  const page = query.page ?? 1;
  const size = query.page_size ?? 20;
  const rows = await store.listTemplates(ctx.db, ctx.accountId, size, (page - 1) * size);
  const account = await ctx.db.selectFrom('accounts').select('email').where('id', '=', ctx.accountId).executeTakeFirst();
  const none = query.fields?.toLowerCase() === 'none';
  const templates = rows.map((row) => {
    const resource = templateResource(row, ctx.baseUrl);
    return none ? { id: resource.id, name: resource.name, default_template: resource.default_template } : resource;
  });
  const base = '/v2/invoicing/templates';
  const links = [link(ctx.baseUrl, `${base}?page=${page}&page_size=${size}`, 'self', 'GET')];
  if (rows.length === size) links.push(link(ctx.baseUrl, `${base}?page=${page + 1}&page_size=${size}`, 'next', 'GET'));
  if (page > 1) links.push(link(ctx.baseUrl, `${base}?page=${page - 1}&page_size=${size}`, 'prev', 'GET'));
  return { addresses: [], emails: account?.email ?? '', phones: [], templates, links };
}
