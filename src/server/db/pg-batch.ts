// Statements written to PostgreSQL together, ended by one Sync: PostgreSQL answers them in order and
// sends its answers in one piece (it flushes its output at each Sync, and waits for the next message
// after it), where a Sync per statement costs a write and a wake-up on each side per statement.
//
// A batch is a `pg` custom query (pg's Submittable: what pg-cursor and pg-query-stream are), so it
// needs the client out of pipeline mode, where pg refuses such queries. An error stops the batch
// there: PostgreSQL skips what follows until the Sync, and those statements are refused unrun
// (`SKIPPED`). Statements written together outside a transaction block run in one implicit
// transaction; payctl writes together only within a transaction, or one statement alone.

import type pg from 'pg';

/** What a batch writes with: pg's Connection, the part of it used here. */
interface Wire {
  stream: { cork?(): void; uncork?(): void };
  parse(config: { text: string; name?: string; types: unknown[] }): void;
  bind(config: { statement?: string; portal?: string; values: unknown[] }): void;
  describe(config: { type: 'P'; name: string }): void;
  execute(config: { portal: string; rows: number }): void;
  close(config: { type: 'S'; name: string }): void;
  sync(): void;
}

interface FieldDescription {
  name: string;
  dataTypeID: number;
  format: 'text' | 'binary';
}

export interface BatchStatement {
  text: string;
  /** Parameters, encoded as pg's Bind writes them (strings, Buffers, nulls). */
  values: readonly unknown[];
  /** A server-side name: parsed once per connection, then only bound and run. */
  name?: string;
  resolve(result: pg.QueryResult): void;
  reject(error: Error): void;
}

/** The prepared statement names of one connection, as far as its batches know them. */
export class PreparedNames {
  readonly #parsed = new Set<string>();
  /** Names whose Parse may or may not have happened (their statement failed): closed before parsed again. */
  readonly #uncertain = new Set<string>();

  has(name: string): boolean {
    return this.#parsed.has(name);
  }

  /** Written for parsing: Close first when a failure left it unknown (closing an unknown name is no error). */
  writeParse(wire: Wire, name: string, text: string): void {
    if (this.#uncertain.delete(name)) wire.close({ type: 'S', name });
    wire.parse({ text, name, types: [] });
    this.#parsed.add(name);
  }

  /** A statement parsed by its batch failed: its Parse ran or not, depending on where it failed. */
  failed(name: string): void {
    this.#parsed.delete(name);
    this.#uncertain.add(name);
  }

  /** A statement parsed by its batch was never reached: its Parse did not run. */
  notRun(name: string): void {
    this.#parsed.delete(name);
  }
}

/** The refusal of a statement that was not run because one written before it in its batch failed. */
export class SkippedStatement extends Error {
  readonly code = '25P02';
  constructor(cause: Error) {
    super(`not run: a statement written before it failed (${cause.message})`, { cause });
  }
}

const COMMAND_COMPLETE = /^([A-Za-z]+)(?: (\d+))?(?: (\d+))?/;

/** pg's QueryResult from a CommandComplete tag ("INSERT 0 1", "UPDATE 2", "BEGIN") and the rows read. */
function resultOf(tag: string, fields: FieldDescription[], rows: unknown[]): pg.QueryResult {
  const match = COMMAND_COMPLETE.exec(tag);
  const count = match?.[3] ?? match?.[2];
  return {
    command: match?.[1] ?? tag,
    rowCount: count === undefined ? null : Number(count),
    oid: match?.[3] === undefined ? 0 : Number(match[2]),
    fields: fields as pg.FieldDef[],
    rows,
  } as pg.QueryResult;
}

/** One round trip of statements (see the head of this file). */
export class StatementBatch {
  #index = 0;
  #fields: FieldDescription[] = [];
  #parsers: Array<(value: string) => unknown> = [];
  #rows: unknown[] = [];
  /** Names this batch parses, by statement index. */
  readonly #parsing = new Map<number, string>();
  #settled = false;

  constructor(
    private readonly statements: readonly BatchStatement[],
    private readonly names: PreparedNames,
    private readonly typeParser: (oid: number, format: 'text' | 'binary') => (value: string) => unknown,
  ) {}

  submit(wire: Wire): null {
    wire.stream.cork?.();
    try {
      this.statements.forEach((statement, index) => {
        if (statement.name === undefined) wire.parse({ text: statement.text, types: [] });
        else if (!this.names.has(statement.name)) {
          this.names.writeParse(wire, statement.name, statement.text);
          this.#parsing.set(index, statement.name);
        }
        wire.bind({ statement: statement.name ?? '', portal: '', values: statement.values as unknown[] });
        wire.describe({ type: 'P', name: '' });
        wire.execute({ portal: '', rows: 0 });
      });
      wire.sync();
    } finally {
      wire.stream.uncork?.();
    }
    return null;
  }

  handleRowDescription(message: { fields: FieldDescription[] }): void {
    this.#fields = message.fields;
    this.#parsers = message.fields.map((field) => this.typeParser(field.dataTypeID, field.format));
  }

  handleDataRow(message: { fields: Array<string | null> }): void {
    const row: Record<string, unknown> = {};
    message.fields.forEach((value, column) => {
      row[this.#fields[column]!.name] = value === null ? null : this.#parsers[column]!(value);
    });
    this.#rows.push(row);
  }

  handleCommandComplete(message: { text: string }): void {
    this.#complete(resultOf(message.text, this.#fields, this.#rows));
  }

  handleEmptyQuery(): void {
    this.#complete(resultOf('', [], []));
  }

  handlePortalSuspended(): void {
    // Every Execute asks for all rows (rows: 0): never suspended.
  }

  /** PostgreSQL's error for the current statement, or the connection's (it ended): the rest is refused unrun. */
  handleError(error: Error): void {
    if (this.#settled) return;
    this.#settled = true;
    const failedAt = this.#index;
    this.statements.forEach((statement, index) => {
      if (index < failedAt) return;
      const parsing = this.#parsing.get(index);
      if (parsing !== undefined) {
        if (index === failedAt) this.names.failed(parsing);
        else this.names.notRun(parsing);
      }
      statement.reject(index === failedAt ? error : new SkippedStatement(error));
    });
  }

  handleReadyForQuery(): void {
    if (this.#settled) return;
    this.#settled = true;
    if (this.#index === this.statements.length) return;
    // Every statement completes before the Sync's answer; one that did not would be a protocol fault.
    const missing = new Error('PostgreSQL answered the batch without completing every statement');
    for (const statement of this.statements.slice(this.#index)) statement.reject(missing);
  }

  #complete(result: pg.QueryResult): void {
    const statement = this.statements[this.#index];
    this.#index += 1;
    this.#fields = [];
    this.#parsers = [];
    this.#rows = [];
    statement?.resolve(result);
  }
}
