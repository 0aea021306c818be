// Copies the published OpenAPI files the schema test validates against into test/fixtures/openapi,
// keeping the machine-readable contract and dropping the prose (description, summary, externalDocs).
// Usage: node scripts/vendor-openapi.mjs <directory holding the published files>

import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const FILES = [
  'checkout_orders_v2.json',
  'payments_payment_v2.json',
  'invoicing_v2.json',
  'customer_disputes_v1.json',
  'payments_payouts_batch_v1.json',
  'notifications_webhooks_v1.json',
  'reporting_transactions_v1.json',
];
const PROSE = new Set(['description', 'summary', 'externalDocs']);

/** Fields whose values the files fix to a sentence (an error's message, an issue's description). */
const FIXED_TEXT_FIELDS = new Set(['message', 'description']);

function withoutProse(node) {
  if (Array.isArray(node)) return node.map(withoutProse);
  if (node === null || typeof node !== 'object') return node;
  // A key named like a prose field inside `properties` is a field of the schema, not prose.
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    if (PROSE.has(key) && typeof value !== 'object') continue;
    if (key === 'externalDocs') continue;
    if (key === 'properties' && value && typeof value === 'object') {
      out[key] = withoutFixedTexts(withoutProse(value));
      continue;
    }
    // OAuth scopes map each scope to a sentence: keep the scopes, not the sentences.
    if (key === 'scopes' && value && typeof value === 'object') {
      out[key] = Object.fromEntries(Object.keys(value).map((scope) => [scope, '']));
      continue;
    }
    out[key] = withoutProse(value);
  }
  return out;
}

/** The sentences an error's message or an issue's description is fixed to are prose: the schema test does not compare them. */
function withoutFixedTexts(properties) {
  const out = { ...properties };
  for (const field of FIXED_TEXT_FIELDS) {
    const schema = out[field];
    if (schema && typeof schema === 'object' && Array.isArray(schema.enum) && schema.enum.every((text) => typeof text === 'string' && /\s/.test(text))) {
      const { enum: _sentences, ...rest } = schema;
      out[field] = rest;
    }
  }
  return out;
}

const source = process.argv[2];
if (!source) throw new Error('usage: node scripts/vendor-openapi.mjs <directory>');
const target = new URL('../test/fixtures/openapi/', import.meta.url).pathname;
for (const file of FILES) {
  const spec = JSON.parse(readFileSync(join(source, file), 'utf8'));
  writeFileSync(join(target, file), `${JSON.stringify(withoutProse(spec))}\n`);
}
copyFileSync(join(source, 'LICENSE'), join(target, 'LICENSE'));
