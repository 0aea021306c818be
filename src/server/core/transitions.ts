// Reading a lifecycle table: the moves each domain's states.ts declares for a status union. The
// refusals stay in the domains, since each answers with its own issue codes and wording.

/** Per status, the statuses it may move to (a status that may stay put lists itself). */
export type TransitionTable<S extends string> = Readonly<Record<S, readonly S[]>>;

export function canTransition<S extends string>(table: TransitionTable<S>, from: S, to: S): boolean {
  return table[from].includes(to);
}

/** The statuses from which `to` can be reached. */
export function sourcesOf<S extends string>(table: TransitionTable<S>, to: S): S[] {
  return (Object.keys(table) as S[]).filter((from) => table[from].includes(to));
}

/** A status read from storage as the table's type; anything else is a bug, not a client error. */
export function storedStatus<S extends string>(table: TransitionTable<S>, what: string, value: string): S {
  if (!Object.hasOwn(table, value)) throw new Error(`unknown ${what} status in storage: ${value}`);
  return value as S;
}
