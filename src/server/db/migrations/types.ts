// A numbered schema change. Migrations are append-only: never edit one that has shipped.

export interface Migration {
  id: number;
  name: string;
  /**
   * SQL statements, run in order inside one transaction. Written for SQLite; PostgreSQL runs them as
   * `postgresStatements` translates them (db/migrate.ts), so write types it can map: INTEGER,
   * INTEGER PRIMARY KEY AUTOINCREMENT, BLOB, TEXT.
   */
  statements: readonly string[];
  /** Statements PostgreSQL alone needs, run after the translated ones (a function SQLite has built in). */
  postgresOnly?: readonly string[];
}
