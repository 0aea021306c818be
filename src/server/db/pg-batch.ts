// Statements written to PostgreSQL together, ended by one Sync: PostgreSQL answers them in order and
// sends its answers in one piece (it flushes its output at each Sync, and waits for the next message
// after it), where a Sync per statement costs a write and a wake-up on each side per statement.
//
// A batch is a `pg` custom query (pg's Submittable: what pg-cursor and pg-query-stream are), so it
// needs the client out of pipeline mode, where pg refuses such queries. An error stops the batch
// there: PostgreSQL skips what follows until the Sync, and those statements are refused unrun
// (`SkippedStatement`). Statements written together outside a transaction block run in one implicit
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

/** PostgreSQL's code for a statement refused in a transaction that is aborted. */
const TRANSACTION_ABORTED = '25P02';

/** An error with PostgreSQL's code for an aborted transaction (25P02), and what caused it, if known here. */
export function transactionAborted(message: string, cause?: Error): Error {
  const error = cause === undefined ? new Error(message) : new Error(`${message} (${cause.message})`, { cause });
  return Object.assign(error, { code: TRANSACTION_ABORTED });
}

/** The refusal of a statement that was not run because one written before it in its batch failed. */
export class SkippedStatement extends Error {
  readonly code = TRANSACTION_ABORTED;
  constructor(cause: Error) {
    super(`not run: a statement written before it failed (${cause.message})`, { cause });
  }
}

/** A statement this process could not write (a value it could not encode): never sent. */
export class UnwrittenStatement extends Error {
  constructor(cause: Error) {
    super(`not sent: it could not be written (${cause.message})`, { cause });
  }
}

/**
 * The prepared statement names of one connection, as far as its batches know them. A name whose
 * Parse may or may not have run (its batch failed at or before it) is closed before it is parsed
 * again: closing a name the server does not know is no error, parsing one it knows is.
 */
export class PreparedNames {
  readonly #parsed = new Set<string>();
  readonly #unknown = new Set<string>();

  has(name: string): boolean {
    return this.#parsed.has(name);
  }

  writeParse(wire: Wire, name: string, text: string): void {
    if (this.#unknown.has(name)) wire.close({ type: 'S', name });
    wire.parse({ text, name, types: [] });
    this.#parsed.add(name);
  }

  /** Its batch completed its statement: the Parse (and any Close before it) ran. */
  confirmed(name: string): void {
    this.#unknown.delete(name);
  }

  /** Its batch ended before its statement completed: whether its Close and Parse ran is unknown. */
  unknown(name: string): void {
    this.#parsed.delete(name);
    this.#unknown.add(name);
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
    oid: match?.[3] === undefined ? null : Number(match[2]),
    fields: fields as pg.FieldDef[],
    rows,
  } as unknown as pg.QueryResult;
}

/**
 * An error PostgreSQL sent about a statement (pg's DatabaseError, severity ERROR): not the
 * connection's, nor a FATAL one that ends the session.
 */
const fromServer = (error: Error) => (error as { severity?: unknown }).severity === 'ERROR';

/**
 * One round trip of statements (see the head of this file). Each statement's result is given once
 * the batch's Sync is answered: an error PostgreSQL reports after the last statement (a commit at
 * the Sync) still reaches them.
 */
export class StatementBatch {
  #fields: FieldDescription[] = [];
  #parsers: Array<(value: string) => unknown> = [];
  #rows: unknown[] = [];
  readonly #results: pg.QueryResult[] = [];
  /** Names this batch parses, by statement index. */
  readonly #parsing = new Map<number, string>();
  /** A statement that could not be written, and why: it and those after it were never sent. */
  #unwritten: { at: number; error: Error } | undefined;
  #settled = false;
  /** Called once the batch is settled: pg wraps it to clear a read timeout (query_timeout) it set. */
  callback: (error: Error | null) => void = () => undefined;

  constructor(
    private readonly statements: readonly BatchStatement[],
    private readonly names: PreparedNames,
    private readonly typeParser: (oid: number, format: 'text' | 'binary') => (value: string) => unknown,
  ) {}

  submit(wire: Wire): null {
    wire.stream.cork?.();
    try {
      for (const [index, statement] of this.statements.entries()) {
        try {
          if (statement.name === undefined) wire.parse({ text: statement.text, types: [] });
          else if (!this.names.has(statement.name)) {
            this.#parsing.set(index, statement.name);
            this.names.writeParse(wire, statement.name, statement.text);
          }
          wire.bind({ statement: statement.name ?? '', portal: '', values: statement.values as unknown[] });
          wire.describe({ type: 'P', name: '' });
          wire.execute({ portal: '', rows: 0 });
        } catch (error) {
          // What was written still gets its answers up to the Sync; this one and the rest are refused.
          this.#unwritten = { at: index, error: new UnwrittenStatement(error instanceof Error ? error : new Error(String(error))) };
          break;
        }
      }
      wire.sync();
    } finally {
      wire.stream.uncork?.();
    }
    return null;
  }

  handleRowDescription(message: { fields: FieldDescription[] }): void {
    if (this.#settled) return;
    this.#fields = message.fields;
    this.#parsers = message.fields.map((field) => this.typeParser(field.dataTypeID, field.format));
  }

  handleDataRow(message: { fields: Array<string | null> }): void {
    if (this.#settled) return;
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

  /**
   * PostgreSQL's error for the statement it was running (or, past the last one, for the Sync's
   * commit): that statement fails with it and those after it are refused unrun. An error of the
   * connection (it ended, a read timeout) reaches every statement not answered, as it is: whether
   * the server ran them is not known.
   */
  handleError(error: Error): void {
    if (this.#settled) return;
    const answered = this.#results.length;
    if (!fromServer(error)) this.#settle(error, (index) => (index < answered ? undefined : error));
    else if (answered === this.statements.length) this.#settle(error, () => error);
    else this.#failFrom(answered, error, error);
  }

  handleReadyForQuery(): void {
    if (this.#settled) return;
    const unwritten = this.#unwritten;
    if (unwritten !== undefined) {
      this.#failFrom(unwritten.at, unwritten.error, null);
      return;
    }
    // Every statement written completes before the Sync's answer; one that did not would be a protocol fault.
    const missing = new Error('PostgreSQL answered the batch without completing every statement');
    this.#settle(null, (index) => (index < this.#results.length ? undefined : missing));
  }

  /** Statement `at` failed with `error`: those before it stand, those after it are refused unrun. */
  #failFrom(at: number, error: Error, settledWith: Error | null): void {
    this.#settle(settledWith, (index) => (index < at ? undefined : index === at ? error : new SkippedStatement(error)));
  }

  #complete(result: pg.QueryResult): void {
    // Answers after the batch was settled (pg's read timeout settles it early) change nothing: the
    // names it left unknown stay so.
    if (this.#settled) return;
    const name = this.#parsing.get(this.#results.length);
    if (name !== undefined) this.names.confirmed(name);
    this.#results.push(result);
    this.#fields = [];
    this.#parsers = [];
    this.#rows = [];
  }

  /** Gives every statement its result, or the error `failure` says it gets; names not confirmed become unknown. */
  #settle(error: Error | null, failure: (index: number) => Error | undefined): void {
    this.#settled = true;
    for (const [index, statement] of this.statements.entries()) {
      const failed = failure(index);
      if (failed === undefined) {
        statement.resolve(this.#results[index]!);
        continue;
      }
      const parsing = this.#parsing.get(index);
      if (parsing !== undefined && index >= this.#results.length) this.names.unknown(parsing);
      statement.reject(failed);
    }
    this.callback(error);
  }
}
