// The invoice list's in-memory page index: deep pages read exactly the rows the plain OFFSET
// query reads, with ties on create_time, and after any change to the table.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDatabase, openDatabase, type OpenedDatabase } from '../../src/server/db/connection.js';
import { migrate } from '../../src/server/db/migrate.js';
import { createSqliteStorage } from '../../src/server/db/sqlite-storage.js';
import type { Storage } from '../../src/server/db/storage.js';
import { listIndexOf } from '../../src/server/invoicing/page-index.js';
import { countInvoices, listInvoicePage, LIST_PAGE_SQL } from '../../src/server/invoicing/store.js';

describe('invoice list page index', () => {
  let opened: OpenedDatabase;
  let storage: Storage;
  const account = 'ACCT1';

  function insert(from: number, to: number, ownerId = account): void {
    const statement = opened.sqlite.prepare(
      `INSERT INTO invoices (id, account_id, invoice_number, status, currency, total_minor, invoice_date, body, transactions, create_time, update_time)
       VALUES (?, ?, ?, 'DRAFT', 'USD', 100, '2026-01-01', '{}', '[]', ?, ?)`,
    );
    for (let n = from; n < to; n += 1) {
      // Three invoices per second: ties on create_time are ordered by id.
      const time = new Date(Date.UTC(2026, 0, 1) + Math.floor(n / 3) * 1000).toISOString();
      statement.run(`INV2-${ownerId}-${String(n).padStart(6, '0')}`, ownerId, `${ownerId}-${n}`, time, time);
    }
    // Raw SQL, not the store: the storage notices the rows itself (a temporary trigger), so nobody reports them.
  }

  function plainPage(offset: number, limit: number): string[] {
    return (opened.sqlite.prepare(LIST_PAGE_SQL).all(account, limit, offset) as Array<{ id: string }>).map((row) => row.id);
  }

  async function indexedPage(offset: number, limit: number): Promise<string[]> {
    return (await listInvoicePage(opened.db, storage, account, limit, offset)).map((row) => row.id);
  }

  beforeAll(() => {
    opened = openDatabase(':memory:');
    migrate(opened.sqlite, '2026-01-01T00:00:00Z');
    storage = createSqliteStorage(opened.db, { groupCommit: false, sqlite: opened.sqlite });
    const accounts = opened.sqlite.prepare("INSERT INTO accounts (id, email, created_at) VALUES (?, ?, '2026-01-01T00:00:00Z')");
    accounts.run(account, 'a@example.com');
    accounts.run('ACCT2', 'b@example.com');
    insert(0, 2_345);
    insert(0, 700, 'ACCT2');
  });
  afterAll(async () => {
    await closeDatabase(opened);
  });

  it('reads the same rows as OFFSET for shallow, deep, anchor-crossing and past-the-end pages', async () => {
    for (const [offset, limit] of [[0, 100], [499, 3], [500, 100], [999, 2], [1_000, 100], [2_200, 100], [2_300, 100], [1_500, 20], [760, 100], [2_400, 10]] as const) {
      expect(await indexedPage(offset, limit), `offset ${offset}`).toEqual(plainPage(offset, limit));
    }
    expect(await countInvoices(opened.db, storage, account)).toBe(2_345);
  });

  it('follows inserts and deletes made after the index was built', async () => {
    expect(await indexedPage(1_200, 50)).toEqual(plainPage(1_200, 50));
    insert(2_345, 2_600);
    expect(await indexedPage(1_200, 50)).toEqual(plainPage(1_200, 50));
    expect(await countInvoices(opened.db, storage, account)).toBe(2_600);
    opened.sqlite.prepare("DELETE FROM invoices WHERE account_id = ? AND id < 'INV2-ACCT1-000300'").run(account);
    expect(await indexedPage(1_000, 100)).toEqual(plainPage(1_000, 100));
    expect(await indexedPage(1_900, 100)).toEqual(plainPage(1_900, 100));
    expect(await countInvoices(opened.db, storage, account)).toBe(2_300);
  });

  it('survives writes to other tables and invoice updates, and is rebuilt by inserts and deletes', async () => {
    const built = await listIndexOf(opened.db, storage, account);
    expect(built).toBeDefined();
    opened.sqlite.prepare("INSERT INTO settings (key, value) VALUES ('unrelated', 'write')").run();
    opened.sqlite.prepare("UPDATE invoices SET status = 'SENT' WHERE account_id = ? AND id = 'INV2-ACCT1-001000'").run(account);
    expect(await listIndexOf(opened.db, storage, account)).toBe(built);
    opened.sqlite.prepare("DELETE FROM invoices WHERE account_id = ? AND id = 'INV2-ACCT1-001000'").run(account);
    const rebuilt = await listIndexOf(opened.db, storage, account);
    expect(rebuilt).not.toBe(built);
    expect(rebuilt?.count).toBe(2_299);
  });
});
