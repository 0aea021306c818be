// The two halves of a list query: the filters the caller gave (an absent one does not narrow), and
// newest-first pages without offsets, ordered by (create_time, a unique tie-breaker) descending,
// each page resuming strictly after the last row of the page before. Written once so that every
// list resumes the same way (a row with the same create_time as the page's last one is neither
// repeated nor skipped).

import { sql, type Selectable, type SelectQueryBuilder, type SqlBool } from 'kysely';

/** `query` narrowed to rows whose columns equal the given values; an undefined value is no filter. */
export function whereGiven<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>, values: Partial<Selectable<DB[TB]>>): SelectQueryBuilder<DB, TB, O> {
  let narrowed = query;
  for (const [column, value] of Object.entries(values)) {
    if (value !== undefined) narrowed = narrowed.where(sql.ref(column), '=', value);
  }
  return narrowed;
}

/** Where the page before ended: its last row's create_time and tie-breaker. */
export interface PageEnd<Tie extends string | bigint> {
  createTime: string;
  tie: Tie;
}

/** `query` newest first by (create_time, `tie`), after `end` when given, at most `limit` rows. */
export function newestFirstPage<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  tie: 'id' | 'seq',
  end: PageEnd<string | bigint> | undefined,
  limit: number,
): SelectQueryBuilder<DB, TB, O> {
  const createTime = sql.ref('create_time');
  const tieColumn = sql.ref(tie);
  const after = end
    ? query.where(sql<SqlBool>`(${createTime} < ${end.createTime} or (${createTime} = ${end.createTime} and ${tieColumn} < ${end.tie}))`)
    : query;
  return after.orderBy(createTime, 'desc').orderBy(tieColumn, 'desc').limit(limit);
}
