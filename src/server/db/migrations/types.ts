// A numbered schema change. Migrations are append-only: never edit one that has shipped.

export interface Migration {
  id: number;
  name: string;
  /** Portable SQL statements, run in order inside one transaction. */
  statements: readonly string[];
}
