// Evidence files over multipart/form-data: accepted types by magic bytes, limits, durable storage and
// download, evidence checks with the spec's issue codes, and nothing kept from a refused request.

import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { authorize, capture } from './payments-helpers.js';

let t: TestServer;
const MiB = 1024 * 1024;

const FILES = {
  pdf: Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(64, 0x20), Buffer.from('\n%%EOF\n')]),
  jpeg: Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(32, 1), Buffer.from([0xff, 0xd9])]),
  gif87: Buffer.concat([Buffer.from('GIF87a'), Buffer.alloc(16, 2)]),
  gif89: Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(16, 3)]),
  png: Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(24, 4)]),
};

interface Part {
  name: string;
  type: string;
  bytes: Buffer;
  field?: string;
}

beforeAll(async () => {
  t = await startTestServer({ memory: true });
});
afterAll(async () => {
  await t.close();
});

async function newDispute(reason = 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED'): Promise<string> {
  const authId = await authorize(t, '25.00');
  const captured = await capture(t, authId);
  const opened = await t.request('POST', '/_payctl/disputes', { body: { disputed_transaction_id: captured.body.id, reason } });
  expect(opened.status).toBe(201);
  return opened.body.dispute_id as string;
}

async function post(id: string, action: string, input: unknown, files: Part[], inputAs: 'field' | 'file' = 'field') {
  const form = new FormData();
  if (input !== undefined) {
    const text = typeof input === 'string' ? input : JSON.stringify(input);
    if (inputAs === 'field') form.append('input', text);
    else form.append('input', new Blob([text], { type: 'application/json' }), 'input.json');
  }
  for (const file of files) form.append(file.field ?? 'evidence-file', new Blob([file.bytes], { type: file.type }), file.name);
  const response = await fetch(`${t.url}/v1/customer/disputes/${id}/${action}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.merchant.token}`, prefer: 'return=representation' },
    body: form,
  });
  return { status: response.status, body: (await response.json()) as any };
}

const evidence = { evidences: [{ evidence_type: 'OTHER', notes: 'See the attached files.' }] };

async function documentCount(): Promise<number> {
  const row = await t.server.db.selectFrom('dispute_documents').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('accepted files', () => {
  it('takes PDF, JPEG, GIF (87a, 89a) and PNG, lists them on the evidence and serves them back byte for byte', async () => {
    const id = await newDispute();
    const parts: Part[] = [
      { name: 'receipt.pdf', type: 'application/pdf', bytes: FILES.pdf },
      { name: 'photo.jpg', type: 'image/jpeg', bytes: FILES.jpeg, field: 'file1' },
      { name: 'old.gif', type: 'image/gif', bytes: FILES.gif87, field: 'file2' },
      { name: 'new.gif', type: 'image/gif', bytes: FILES.gif89 },
      { name: 'label.png', type: 'image/png', bytes: FILES.png },
    ];
    const response = await post(id, 'provide-evidence', evidence, parts);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const documents = response.body.evidences[0].documents as Array<{ name: string; url: string }>;
    expect(documents.map((document) => document.name)).toEqual(parts.map((part) => part.name));
    for (const [index, document] of documents.entries()) {
      expect(document.url).toMatch(new RegExp(`/v1/customer/disputes/${id}/documents/DOC-[A-Z0-9]{20}$`));
      const download = await fetch(document.url, { headers: { authorization: `Bearer ${t.merchant.token}` } });
      expect(download.status).toBe(200);
      expect(download.headers.get('content-type')).toBe(parts[index]!.type);
      expect(Buffer.from(await download.arrayBuffer()).equals(parts[index]!.bytes)).toBe(true);
    }
  });

  it('takes a file of exactly 10 MiB, the input as a JSON file part, and plain JSON without files', async () => {
    const big = Buffer.concat([FILES.pdf, Buffer.alloc(10 * MiB - FILES.pdf.length, 0x41)]);
    const id = await newDispute();
    const response = await post(id, 'provide-evidence', evidence, [{ name: 'big.pdf', type: 'application/pdf', bytes: big }], 'file');
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.evidences[0].documents).toHaveLength(1);
    const plain = await t.request('POST', `/v1/customer/disputes/${await newDispute()}/provide-evidence`, { body: evidence });
    expect(plain.status).toBe(200);
  });

  it('assigns files to the evidence whose documents name them', async () => {
    const id = await newDispute();
    const input = {
      evidences: [
        { evidence_type: 'OTHER', notes: 'first' },
        { evidence_type: 'PROOF_OF_RECEIPT_COPY', documents: [{ name: 'copy.png' }] },
      ],
    };
    const response = await post(id, 'provide-evidence', input, [
      { name: 'a.pdf', type: 'application/pdf', bytes: FILES.pdf },
      { name: 'copy.png', type: 'image/png', bytes: FILES.png },
    ]);
    expect(response.status).toBe(200);
    expect(response.body.evidences.map((e: { documents?: Array<{ name: string }> }) => e.documents?.map((d) => d.name))).toEqual([['a.pdf'], ['copy.png']]);
  });
});

describe('refused files keep nothing', () => {
  const pdfPart = (name = 'ok.pdf'): Part => ({ name, type: 'application/pdf', bytes: FILES.pdf });
  const CASES: Array<[string, () => Part[], RegExp]> = [
    ['PNG declared, PDF bytes', () => [{ name: 'fake.png', type: 'image/png', bytes: FILES.pdf }], /the content is application\/pdf, not image\/png/],
    ['JPEG declared, random bytes', () => [{ name: 'x.jpg', type: 'image/jpeg', bytes: Buffer.from('not an image at all') }], /not a PDF, JPEG, GIF or PNG/],
    ['a type that is not accepted', () => [{ name: 'notes.txt', type: 'text/plain', bytes: Buffer.from('hello') }], /declared type is text\/plain/],
    ['a PDF named .png', () => [{ name: 'doc.png', type: 'application/pdf', bytes: FILES.pdf }], /must be named \.pdf/],
    ['an empty file', () => [{ name: 'empty.pdf', type: 'application/pdf', bytes: Buffer.alloc(0) }], /not a PDF, JPEG, GIF or PNG/],
    ['a good file then a bad one', () => [pdfPart(), { name: 'bad.gif', type: 'image/gif', bytes: Buffer.from('GIF90a-----') }], /bad\.gif/],
    ['11 files', () => Array.from({ length: 11 }, (_, index) => pdfPart(`f${index}.pdf`)), /At most 10 files/],
    ['a file of 10 MiB + 1 byte', () => [{ name: 'huge.pdf', type: 'application/pdf', bytes: Buffer.concat([FILES.pdf, Buffer.alloc(10 * MiB + 1 - FILES.pdf.length)]) }], /at most 10 MB/],
    ['6 files of 9 MiB (54 MiB in all)', () => Array.from({ length: 6 }, (_, index) => ({ name: `p${index}.pdf`, type: 'application/pdf', bytes: Buffer.concat([FILES.pdf, Buffer.alloc(9 * MiB - FILES.pdf.length)]) })), /total at most 50 MB/],
  ];

  it.each(CASES)('%s: 400 VALIDATION_ERROR / INVALID_EVIDENCE_FILE, dispute unchanged', async (_name, parts, description) => {
    const id = await newDispute();
    const before = (await t.request('GET', `/v1/customer/disputes/${id}`)).body;
    const documents = await documentCount();
    const response = await post(id, 'provide-evidence', evidence, parts());
    expect([response.status, response.body.name, response.body.details?.[0]?.issue], JSON.stringify(response.body)).toEqual([
      400,
      'VALIDATION_ERROR',
      'INVALID_EVIDENCE_FILE',
    ]);
    expect(response.body.details[0].description).toMatch(description);
    const after = (await t.request('GET', `/v1/customer/disputes/${id}`)).body;
    expect(after).toEqual(before);
    expect(await documentCount()).toBe(documents);
  });

  it('refuses files on an action that takes none, and a named document that was not uploaded', async () => {
    const id = await newDispute();
    const offer = await post(id, 'make-offer', { note: 'n', offer_type: 'REFUND', offer_amount: { currency_code: 'USD', value: '1.00' } }, [pdfPart()]);
    expect([offer.status, offer.body.details?.[0]?.issue]).toEqual([400, 'INVALID_EVIDENCE_FILE']);
    const missing = await post(id, 'provide-evidence', { evidences: [{ evidence_type: 'OTHER', documents: [{ name: 'absent.pdf' }] }] }, [pdfPart()]);
    expect([missing.status, missing.body.details?.[0]?.issue, missing.body.details?.[0]?.field]).toEqual([
      400,
      'INVALID_EVIDENCE_FILE',
      '/evidences/0/documents/0/name',
    ]);
    expect((await t.request('GET', `/v1/customer/disputes/${id}`)).body.status).toBe('WAITING_FOR_SELLER_RESPONSE');
  });

  it('a malformed input part is INVALID_REQUEST / MALFORMED_REQUEST_JSON', async () => {
    const id = await newDispute();
    const response = await post(id, 'provide-evidence', '{"evidences": [', [pdfPart()]);
    expect([response.status, response.body.name, response.body.details?.[0]?.issue]).toEqual([400, 'INVALID_REQUEST', 'MALFORMED_REQUEST_JSON']);
  });

  it('multipart stays scoped to the dispute routes', async () => {
    const form = new FormData();
    form.append('input', '{}');
    const response = await fetch(`${t.url}/v2/payments/captures/ANY/refund`, { method: 'POST', headers: { authorization: `Bearer ${t.merchant.token}` }, body: form });
    expect(response.status).toBe(415);
    expect(((await response.json()) as { name: string }).name).toBe('UNSUPPORTED_MEDIA_TYPE');
  });
});

describe('evidence checks (provide-evidence and appeal)', () => {
  const tracking = { tracking_info: [{ carrier_name: 'USPS', tracking_number: '9400' }] };
  const CASES: Array<[string, string, unknown, string]> = [
    ['no evidences', 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED', { evidences: [] }, 'MISSING_EVIDENCE_INFO'],
    ['an evidence without a type', 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED', { evidences: [{ notes: 'n' }] }, 'MISSING_EVIDENCE_TYPE'],
    ['proof of fulfillment without tracking', 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED', { evidences: [{ evidence_type: 'PROOF_OF_FULFILLMENT', notes: 'n' }] }, 'MISSING_TRACKING_INFO'],
    ['proof of fulfillment for a credit dispute', 'CREDIT_NOT_PROCESSED', { evidences: [{ evidence_type: 'PROOF_OF_FULFILLMENT', evidence_info: tracking }] }, 'INVALID_EVIDENCE_TYPE_PROOF_OF_FULFILLMENT'],
    ['proof of refund without refund ids', 'CREDIT_NOT_PROCESSED', { evidences: [{ evidence_type: 'PROOF_OF_REFUND', notes: 'n' }] }, 'MISSING_REFUND_ID'],
    ['proof of return without info', 'MERCHANDISE_OR_SERVICE_NOT_AS_DESCRIBED', { evidences: [{ evidence_type: 'PROOF_OF_RETURN', notes: 'n' }] }, 'MISSING_EVIDENCE_INFO'],
    ['an evidence carrying nothing', 'OTHER', { evidences: [{ evidence_type: 'OTHER' }] }, 'MISSING_EVIDENCE_INFO'],
    [
      'two of a type without item ids',
      'OTHER',
      { evidences: [{ evidence_type: 'OTHER', notes: 'a' }, { evidence_type: 'OTHER', notes: 'b' }] },
      'ITEM_ID_IS_MANDATORY_FOR_MULTIPLE_EVIDENCES',
    ],
  ];

  it.each(CASES)('%s (%s): VALIDATION_ERROR / %s', async (_name, reason, input, issue) => {
    const id = await newDispute(reason);
    const response = await t.request('POST', `/v1/customer/disputes/${id}/provide-evidence`, { body: input });
    expect([response.status, response.body.name, response.body.details?.[0]?.issue]).toEqual([400, 'VALIDATION_ERROR', issue]);
  });

  it('two of a type with item ids are fine', async () => {
    const id = await newDispute('OTHER');
    const input = { evidences: [{ evidence_type: 'OTHER', notes: 'a', item_id: 'A1' }, { evidence_type: 'OTHER', notes: 'b', item_id: 'B2' }] };
    const response = await t.request('POST', `/v1/customer/disputes/${id}/provide-evidence`, { body: input });
    expect(response.status).toBe(200);
  });
});

describe('durability', () => {
  it('documents survive a restart of the server on the same database file', async () => {
    const disk = await startTestServer();
    try {
      const authId = await authorize(disk, '12.00');
      const captured = await capture(disk, authId);
      const opened = await disk.request('POST', '/_payctl/disputes', { body: { disputed_transaction_id: captured.body.id, reason: 'OTHER' } });
      const form = new FormData();
      form.append('input', JSON.stringify(evidence));
      form.append('evidence-file', new Blob([FILES.png], { type: 'image/png' }), 'kept.png');
      const uploaded = await fetch(`${disk.url}/v1/customer/disputes/${opened.body.dispute_id}/provide-evidence`, {
        method: 'POST',
        headers: { authorization: `Bearer ${disk.merchant.token}`, prefer: 'return=representation' },
        body: form,
      });
      const url = new URL(((await uploaded.json()) as any).evidences[0].documents[0].url);
      await disk.server.close();

      const again = await startServer({ dbPath: disk.dbPath, logLevel: 'silent' });
      try {
        const creds = again.defaultCredentials;
        const token = await fetch(`${again.url}/v1/oauth2/token`, {
          method: 'POST',
          headers: { authorization: `Basic ${Buffer.from(`${creds.client_id}:${creds.client_secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=client_credentials',
        });
        const { access_token: accessToken } = (await token.json()) as { access_token: string };
        const download = await fetch(`${again.url}${url.pathname}`, { headers: { authorization: `Bearer ${accessToken}` } });
        expect(download.status).toBe(200);
        expect(Buffer.from(await download.arrayBuffer()).equals(FILES.png)).toBe(true);
      } finally {
        await again.close();
      }
    } finally {
      rmSync(disk.dir, { recursive: true, force: true });
    }
  });
});
