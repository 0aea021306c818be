// A batch of statements ended by one Sync (src/server/db/pg-batch.ts), driven as pg drives a custom
// query: what it writes, and which statement gets which answer or error, for each way a batch ends.

import { describe, expect, it } from 'vitest';
import type pg from 'pg';
import { PreparedNames, SkippedStatement, StatementBatch, UnwrittenStatement, type BatchStatement } from '../../src/server/db/pg-batch.js';

/** The messages a batch writes, as `P name`, `C name` (Close), `B name`, `D`, `E`, `S`. */
function fakeWire(failBindOf?: string) {
  const written: string[] = [];
  return {
    written,
    stream: {},
    parse: (config: { name?: string }) => written.push(`P ${config.name ?? ''}`),
    bind: (config: { statement?: string; values: unknown[] }) => {
      if (failBindOf !== undefined && config.statement === failBindOf) throw new Error('cannot encode');
      written.push(`B ${config.statement ?? ''}`);
    },
    describe: () => written.push('D'),
    execute: () => written.push('E'),
    close: (config: { name: string }) => written.push(`C ${config.name}`),
    sync: () => written.push('S'),
  };
}

interface Outcome {
  result?: pg.QueryResult;
  error?: Error;
}

function statements(...names: Array<string | undefined>): { list: BatchStatement[]; outcomes: Outcome[] } {
  const outcomes: Outcome[] = names.map(() => ({}));
  const list = names.map((name, index) => ({
    text: `select ${index}`,
    values: [String(index)],
    ...(name !== undefined ? { name } : {}),
    resolve: (result: pg.QueryResult) => (outcomes[index]!.result = result),
    reject: (error: Error) => (outcomes[index]!.error = error),
  }));
  return { list, outcomes };
}

const textParser = () => (value: string) => `parsed:${value}`;
const serverError = (message: string) => Object.assign(new Error(message), { severity: 'ERROR', code: '23505' });

describe('a batch of statements with one Sync', () => {
  it('parses each name once per connection, ends with one Sync, and answers in order once the Sync is answered', () => {
    const names = new PreparedNames();
    const first = statements('s1', undefined, 's1');
    const batch = new StatementBatch(first.list, names, textParser);
    const wire = fakeWire();
    batch.submit(wire);
    expect(wire.written).toEqual(['P s1', 'B s1', 'D', 'E', 'P ', 'B ', 'D', 'E', 'B s1', 'D', 'E', 'S']);
    batch.handleRowDescription({ fields: [{ name: 'v', dataTypeID: 23, format: 'text' }] });
    batch.handleDataRow({ fields: ['7'] });
    batch.handleDataRow({ fields: [null] });
    batch.handleCommandComplete({ text: 'SELECT 2' });
    batch.handleCommandComplete({ text: 'INSERT 0 3' });
    batch.handleCommandComplete({ text: 'BEGIN' });
    // Nothing is answered before the Sync's answer.
    expect(first.outcomes).toEqual([{}, {}, {}]);
    let called = 0;
    batch.callback = () => (called += 1);
    batch.handleReadyForQuery();
    expect(first.outcomes.map((outcome) => [outcome.result?.command, outcome.result?.rowCount, outcome.result?.rows])).toEqual([
      ['SELECT', 2, [{ v: 'parsed:7' }, { v: null }]],
      ['INSERT', 3, []],
      ['BEGIN', null, []],
    ]);
    expect(called).toBe(1);
    // The next batch on the connection binds s1 without parsing it.
    const wire2 = fakeWire();
    new StatementBatch(statements('s1').list, names, textParser).submit(wire2);
    expect(wire2.written).toEqual(['B s1', 'D', 'E', 'S']);
  });

  it('fails the statement PostgreSQL refused, refuses those after it unrun, and closes their names before parsing them again', () => {
    const names = new PreparedNames();
    const { list, outcomes } = statements('a', 'b', 'c');
    const batch = new StatementBatch(list, names, textParser);
    batch.submit(fakeWire());
    batch.handleCommandComplete({ text: 'UPDATE 1' });
    const refused = serverError('duplicate key');
    batch.handleError(refused);
    expect(outcomes[0]!.result?.command).toBe('UPDATE');
    expect(outcomes[1]!.error).toBe(refused);
    expect(outcomes[2]!.error).toBeInstanceOf(SkippedStatement);
    expect(outcomes[2]!.error).toMatchObject({ code: '25P02', cause: refused });
    // b may exist on the server (its Parse ran, its Execute failed); c's Parse was skipped: both are
    // closed first, a is known.
    const wire = fakeWire();
    new StatementBatch(statements('a', 'b', 'c').list, names, textParser).submit(wire);
    expect(wire.written).toEqual(['B a', 'D', 'E', 'C b', 'P b', 'B b', 'D', 'E', 'C c', 'P c', 'B c', 'D', 'E', 'S']);
  });

  it('keeps a name unknown when the batch that closed and parsed it again failed before it', () => {
    const names = new PreparedNames();
    const once = statements('x');
    const failing = new StatementBatch(once.list, names, textParser);
    failing.submit(fakeWire());
    failing.handleError(serverError('refused at execute'));
    // Closed and parsed again behind a statement that fails: PostgreSQL skips both, x may still exist.
    const second = new StatementBatch(statements(undefined, 'x').list, names, textParser);
    const wire = fakeWire();
    second.submit(wire);
    expect(wire.written).toEqual(['P ', 'B ', 'D', 'E', 'C x', 'P x', 'B x', 'D', 'E', 'S']);
    second.handleError(serverError('the first statement failed'));
    const third = fakeWire();
    new StatementBatch(statements('x').list, names, textParser).submit(third);
    expect(third.written.slice(0, 2)).toEqual(['C x', 'P x']);
  });

  it('ignores answers that come after the batch was settled early (a read timeout), leaving its names unknown', () => {
    const names = new PreparedNames();
    const { list, outcomes } = statements('late');
    const batch = new StatementBatch(list, names, textParser);
    batch.submit(fakeWire());
    const timeout = new Error('Query read timeout');
    batch.handleError(timeout);
    batch.handleCommandComplete({ text: 'SELECT 0' });
    batch.handleReadyForQuery();
    expect(outcomes[0]!.error).toBe(timeout);
    const next = fakeWire();
    new StatementBatch(statements('late').list, names, textParser).submit(next);
    expect(next.written.slice(0, 2)).toEqual(['C late', 'P late']);
  });

  it('gives an error of the connection as it is to every statement not answered', () => {
    const { list, outcomes } = statements(undefined, undefined, undefined);
    const batch = new StatementBatch(list, new PreparedNames(), textParser);
    batch.submit(fakeWire());
    batch.handleCommandComplete({ text: 'INSERT 0 1' });
    const lost = new Error('Connection terminated unexpectedly');
    batch.handleError(lost);
    expect(outcomes[0]!.result?.command).toBe('INSERT');
    expect([outcomes[1]!.error, outcomes[2]!.error]).toEqual([lost, lost]);
  });

  it('fails every statement with an error PostgreSQL reports after the last one (the commit at the Sync)', () => {
    const { list, outcomes } = statements(undefined, undefined);
    const batch = new StatementBatch(list, new PreparedNames(), textParser);
    batch.submit(fakeWire());
    batch.handleCommandComplete({ text: 'INSERT 0 1' });
    batch.handleCommandComplete({ text: 'INSERT 0 1' });
    const atCommit = serverError('deferred constraint');
    batch.handleError(atCommit);
    expect(outcomes.map((outcome) => outcome.error)).toEqual([atCommit, atCommit]);
  });

  it('writes the Sync after a statement that cannot be written, answers those before it and refuses it and the rest', () => {
    const names = new PreparedNames();
    const { list, outcomes } = statements('ok', 'bad', 'after');
    const batch = new StatementBatch(list, names, textParser);
    const wire = fakeWire('bad');
    batch.submit(wire);
    expect(wire.written).toEqual(['P ok', 'B ok', 'D', 'E', 'P bad', 'S']);
    batch.handleCommandComplete({ text: 'SELECT 0' });
    batch.handleReadyForQuery();
    expect(outcomes[0]!.result?.command).toBe('SELECT');
    expect(outcomes[1]!.error).toBeInstanceOf(UnwrittenStatement);
    expect(outcomes[1]!.error?.cause).toMatchObject({ message: 'cannot encode' });
    expect(outcomes[2]!.error).toBeInstanceOf(SkippedStatement);
    // bad's Parse went out (PostgreSQL ran it): closed before it is parsed again.
    const next = fakeWire();
    new StatementBatch(statements('bad').list, names, textParser).submit(next);
    expect(next.written.slice(0, 2)).toEqual(['C bad', 'P bad']);
  });
});
