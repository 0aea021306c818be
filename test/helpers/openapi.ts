// Validates response bodies against the published OpenAPI files (test/fixtures/openapi, prose stripped).

import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

export type ApiFile =
  | 'checkout_orders_v2'
  | 'payments_payment_v2'
  | 'invoicing_v2'
  | 'customer_disputes_v1'
  | 'payments_payouts_batch_v1'
  | 'notifications_webhooks_v1'
  | 'reporting_transactions_v1';

const FIXTURES = new URL('../fixtures/openapi/', import.meta.url);

/** The files' own format names: free-form strings as far as the schemas go. */
const VENDOR_FORMATS = [
  'ppaas_date_time_v3',
  'ppaas_common_currency_code_v2',
  'ppaas_common_country_code_v2',
  'ppaas_common_email_address_v2',
  'ppaas_common_language_v3',
  'ppaas_payer_id_v3',
  'ppaas_date_notime_v2',
  'merchant_common_email_address_v2',
  'ppaas_common_percentage_v2',
  'payer_v1',
  'ppaas_ip_address_v1',
  'binary',
];

interface Operation {
  responses?: Record<string, { $ref?: string; content?: Record<string, { schema?: unknown }> }>;
}

interface ApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> };
}

export interface SchemaViolation {
  file: ApiFile;
  operation: string;
  status: number;
  errors: Array<{ path: string; keyword: string; message: string; params: unknown }>;
}

/** One published file: resolves a (method, path, status) to its response schema and validates bodies. */
export class PublishedApi {
  private readonly ajv: Ajv;
  private readonly document: ApiDocument;
  private readonly compiled = new Map<string, ValidateFunction | null>();
  private readonly templates: Array<{ template: string; pattern: RegExp }>;

  constructor(readonly file: ApiFile) {
    this.document = JSON.parse(readFileSync(new URL(`${file}.json`, FIXTURES), 'utf8')) as ApiDocument;
    // OpenAPI 3.0 schemas (`example`, `readOnly` are not JSON Schema keywords); the files' patterns are
    // written for non-unicode regular expressions.
    this.ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, discriminator: false, unicodeRegExp: false });
    addFormats(this.ajv);
    for (const name of VENDOR_FORMATS) this.ajv.addFormat(name, true);
    this.ajv.addSchema(this.document as object, file);
    // Literal segments first, so /webhooks-events wins over /webhooks/{id} style templates.
    this.templates = Object.keys(this.document.paths)
      .map((template) => ({
        template,
        pattern: new RegExp(`^${template.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\\\{[^}]+\\\}/g, '[^/]+')}$`),
      }))
      .sort((a, b) => a.template.split('{').length - b.template.split('{').length);
  }

  /** The path template of the file that an actual request path (no query) matches. */
  templateOf(path: string): string | undefined {
    const bare = path.split('?')[0] ?? path;
    return this.templates.find((entry) => entry.pattern.test(bare))?.template;
  }

  /** Whether the file declares this operation (method and path). */
  has(method: string, path: string): boolean {
    const template = this.templateOf(path);
    return template !== undefined && this.document.paths[template]?.[method.toLowerCase()] !== undefined;
  }

  private validatorFor(template: string, method: string, status: number): ValidateFunction | null {
    const key = `${method} ${template} ${status}`;
    if (this.compiled.has(key)) return this.compiled.get(key) ?? null;
    const operation = this.document.paths[template]?.[method];
    if (!operation?.responses) throw new Error(`${this.file}: no operation ${method.toUpperCase()} ${template}`);
    const code = operation.responses[String(status)] ? String(status) : 'default';
    let response = operation.responses[code];
    if (!response) throw new Error(`${this.file}: ${method.toUpperCase()} ${template} declares no ${status} and no default`);
    let pointer = `${this.file}#/paths/${escapePointer(template)}/${method}/responses/${code}`;
    if (response.$ref) {
      const name = response.$ref.split('/').pop() ?? '';
      response = this.document.components?.responses?.[name] ?? {};
      pointer = `${this.file}#/components/responses/${escapePointer(name)}`;
    }
    const schema = response.content?.['application/json']?.schema;
    const validate = schema === undefined ? null : this.ajv.compile({ $ref: `${pointer}/content/application~1json/schema` });
    this.compiled.set(key, validate);
    return validate;
  }

  /**
   * Validates a body for (method, path, status); undefined when it conforms. A status the operation
   * declares without a body (204) must come without one.
   */
  validate(method: string, path: string, status: number, body: unknown): SchemaViolation | undefined {
    const lower = method.toLowerCase();
    const template = this.templateOf(path);
    if (!template) throw new Error(`${this.file}: no path template matches ${path}`);
    const operation = `${method.toUpperCase()} ${template}`;
    const validate = this.validatorFor(template, lower, status);
    if (validate === null) {
      if (body === undefined || body === '' || body === null) return undefined;
      return { file: this.file, operation, status, errors: [{ path: '', keyword: 'body', message: 'the file declares no body for this status', params: {} }] };
    }
    if (validate(withoutFixedTexts(body))) return undefined;
    const errors = (validate.errors ?? []).filter((error) => !isFixedMessageText(error)).map((error) => ({
      path: error.instancePath,
      keyword: error.keyword,
      message: error.message ?? '',
      params: error.params,
    }));
    return errors.length === 0 ? undefined : { file: this.file, operation, status, errors };
  }
}

/**
 * The files fix each error's `message` and each issue's `description` text (an issue code paired
 * with its sentence); ours may be worded differently. The issue codes, names and shapes still count.
 */
function isFixedMessageText(error: ErrorObject): boolean {
  if (error.instancePath === '/message' && (error.keyword === 'enum' || error.keyword === 'const' || error.keyword === 'pattern')) return true;
  return /^\/details\/\d+$/.test(error.instancePath) && error.keyword === 'required' && (error.params as { missingProperty?: string }).missingProperty === 'description';
}

/** An error body without its details' descriptions (see isFixedMessageText); other bodies as they are. */
function withoutFixedTexts(body: unknown): unknown {
  if (body === null || typeof body !== 'object' || !('debug_id' in body)) return body;
  const details = (body as { details?: unknown }).details;
  if (!Array.isArray(details)) return body;
  return {
    ...body,
    details: details.map((detail: unknown) => {
      if (detail === null || typeof detail !== 'object') return detail;
      const { description: _text, ...rest } = detail as Record<string, unknown>;
      return rest;
    }),
  };
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1').replace(/\{/g, '%7B').replace(/\}/g, '%7D');
}

const FILE_BY_PREFIX: Array<[RegExp, ApiFile]> = [
  [/^\/v2\/checkout\/orders/, 'checkout_orders_v2'],
  [/^\/v2\/payments\//, 'payments_payment_v2'],
  [/^\/v2\/invoicing\//, 'invoicing_v2'],
  [/^\/v1\/customer\/disputes/, 'customer_disputes_v1'],
  [/^\/v1\/payments\/payouts/, 'payments_payouts_batch_v1'],
  [/^\/v1\/notifications\//, 'notifications_webhooks_v1'],
  [/^\/v1\/reporting\//, 'reporting_transactions_v1'],
];

const loaded = new Map<ApiFile, PublishedApi>();

/** The published file for a request path, or undefined for paths no file covers (/_payctl, oauth). */
export function publishedApiFor(path: string): PublishedApi | undefined {
  const file = FILE_BY_PREFIX.find(([prefix]) => prefix.test(path))?.[1];
  if (!file) return undefined;
  let api = loaded.get(file);
  if (!api) loaded.set(file, (api = new PublishedApi(file)));
  return api;
}
