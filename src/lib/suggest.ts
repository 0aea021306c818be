// "Did you mean": the command nearest to a mistyped one, and the arguments that go along with it.

export interface Suggestion {
  /** The command's id, colon-separated as oclif keeps it. */
  id: string;
  /** What followed the command on the typed line: the words after it, then flags and the rest. */
  argv: string[];
  distance: number;
}

/** Edit distance (insertions, deletions, substitutions) between two strings. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * oclif hands over a mistyped line as one id of every word before the first flag
 * (`payments refnd X --yes` -> id `payments:refnd:X`, argv `--yes`). Each command is compared with
 * as many leading words as it has; the words left over are its arguments, kept in order. Only a
 * near miss is suggested: at most a third of the command's last word may differ (and never less than 2).
 */
export function suggestCommand(typedId: string, argv: readonly string[], commandIds: readonly string[]): Suggestion | undefined {
  const typed = typedId.split(':');
  let best: (Suggestion & { words: number }) | undefined;
  for (const id of commandIds) {
    const words = id.split(':');
    if (words.length > typed.length) continue;
    const distance = editDistance(typed.slice(0, words.length).join(':'), id);
    const allowed = Math.max(2, Math.floor((words.at(-1) ?? '').length / 3));
    if (distance === 0 || distance > allowed) continue;
    const better = !best || distance < best.distance || (distance === best.distance && words.length > best.words);
    if (better) best = { id, argv: [...typed.slice(words.length), ...argv], distance, words: words.length };
  }
  return best ? { id: best.id, argv: best.argv, distance: best.distance } : undefined;
}

/** A command line as a person would type it back into a POSIX shell. */
export function shellLine(words: readonly string[]): string {
  return words.map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)).join(' ');
}
