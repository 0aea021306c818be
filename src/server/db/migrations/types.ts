// A numbered schema change. Migrations are append-only: never edit one that has shipped.

export interface Migration {
  id: number;
  name: string;
  /** SQL statements, run in order inside one transaction: SQLite's, and PostgreSQL's where `postgres` is absent. */
  statements: readonly string[];
  /**
   * PostgreSQL's own statements where types differ (BIGINT for SQLite's INTEGER, identity columns
   * for AUTOINCREMENT, BYTEA for BLOB, a function SQLite has built in); absent when `statements`
   * run on both as written.
   */
  postgres?: readonly string[];
}
