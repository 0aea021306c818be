// What the journal keeps of a body or header: secrets masked, JSON kept as sent, long bodies cut and marked.

import { describe, expect, it } from 'vitest';
import { BODY_CAP_BYTES, MASK, keepParsed, keepText, maskHeaders, maskQuery } from '../../src/server/journal/mask.js';

describe('journal masking and caps', () => {
  it('keeps a JSON answer as sent, and masks one that names a secret', () => {
    const plain = '{"id":"CAP-1","status":"COMPLETED"}';
    expect(keepText(plain, 'application/json; charset=utf-8')).toEqual({ json: plain, truncated: false });
    const secret = JSON.parse(keepText('{"access_token":"A21AA-XYZ","token_type":"Bearer","app_id":"APP-1"}', 'application/json').json);
    expect(secret).toEqual({ access_token: MASK, token_type: 'Bearer', app_id: 'APP-1' });
  });

  it('cuts an answer longer than the cap to a string of at most the cap, marked', () => {
    const long = JSON.stringify({ items: Array.from({ length: 5_000 }, (_, index) => ({ id: `ITEM-${index}`, name: 'x'.repeat(20) })) });
    expect(Buffer.byteLength(long)).toBeGreaterThan(BODY_CAP_BYTES);
    const kept = keepText(long, 'application/json');
    expect(kept.truncated).toBe(true);
    const text = JSON.parse(kept.json) as string;
    expect(typeof text).toBe('string');
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(BODY_CAP_BYTES);
    expect(long.startsWith(text.slice(0, 1000))).toBe(true);
  });

  it('keeps a text answer (the payer page) as a string', () => {
    expect(JSON.parse(keepText('<html>pay</html>', 'text/html').json)).toBe('<html>pay</html>');
  });

  it('masks secret fields of a request body at any depth, and leaves the rest', () => {
    const kept = JSON.parse(keepParsed({ grant_type: 'client_credentials', client_secret: 's3cr3t', nested: [{ password: 'p', name: 'n' }] }).json);
    expect(kept).toEqual({ grant_type: 'client_credentials', client_secret: MASK, nested: [{ password: MASK, name: 'n' }] });
    expect(keepParsed(undefined)).toEqual({ json: 'null', truncated: false });
  });

  it("keeps a card's last four digits and never its security code", () => {
    const body = { payment_source: { card: { number: '4111 1111 1111 1111', security_code: '123', expiry: '2030-12', name: 'Ada' } } };
    const kept = JSON.parse(keepParsed(body).json);
    expect(kept).toEqual({ payment_source: { card: { number: `${MASK}1111`, security_code: MASK, expiry: '2030-12', name: 'Ada' } } });
    expect(keepParsed(body).json).not.toContain('4111');
    // A number elsewhere (not a card's) stays.
    expect(JSON.parse(keepParsed({ invoice: { number: 'INV-4111111111111111' } }).json)).toEqual({ invoice: { number: 'INV-4111111111111111' } });
  });

  it('masks credentials in headers (keeping the scheme) and in the query', () => {
    expect(maskHeaders({ authorization: 'Basic Zm9vOmJhcg==', 'service-auth-assertion': 'a.b.', cookie: 'k=v', accept: 'application/json' })).toEqual({
      authorization: `Basic ${MASK}`,
      'service-auth-assertion': MASK,
      cookie: MASK,
      accept: 'application/json',
    });
    expect(maskQuery('page=2&access_token=abc')).toBe(`page=2&access_token=${encodeURIComponent(MASK)}`);
    expect(maskQuery('page=2')).toBe('page=2');
  });
});
