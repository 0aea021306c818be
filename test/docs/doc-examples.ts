// Finds the shell examples in the README and docs/*.md, so that the doc test can run them.
//
// A fenced block whose info string starts with sh, bash, shell or console is an example. Words after
// the language mark it:
//   no-test   shown, never run (npm install, npm link, a server or listener in the foreground);
//             the rest of the info string may say why: ```sh no-test (runs until Ctrl-C)
//   exit=N    the block's last command exits N (a refusal shown on purpose); default 0
//   postgres  needs a PostgreSQL database: the block writes its URL as POSTGRES_EXAMPLE_URL, and the
//             doc test puts a fresh database in its place (skipped, saying why, without one)
// In a console block only the lines starting with "$ " are commands (the rest is output).

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DocExample {
  /** Path relative to the repository, e.g. docs/payments.md. */
  file: string;
  /** Line of the opening fence (1-based). */
  line: number;
  lang: string;
  skip: boolean;
  expectedExit: number;
  /** Fenced ```sh postgres: runs only with a PostgreSQL server (PAYCTL_TEST_PG). */
  postgres: boolean;
  script: string;
}

/** A fenced block in another language (or none) whose lines start with `payctl`: it would never run. */
export interface UnrunBlock {
  file: string;
  line: number;
}

const SHELL_LANGS = new Set(['sh', 'bash', 'shell', 'console']);

/** The database URL a `postgres` example writes; the doc test replaces it with a fresh database's. */
export const POSTGRES_EXAMPLE_URL = 'postgres://payctl:secret@localhost:5432/payctl';

/** README.md first, then docs/*.md in name order. */
export function docFiles(repo: string): string[] {
  const docs = readdirSync(join(repo, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

export function extractExamples(file: string, text: string, unrun: UnrunBlock[] = []): DocExample[] {
  const examples: DocExample[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const open = /^(\s*)(```+|~~~+)\s*(.*)$/.exec(lines[i] ?? '');
    if (!open) continue;
    const fence = open[2] ?? '```';
    const info = (open[3] ?? '').trim();
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !(lines[j] ?? '').trimStart().startsWith(fence)) body.push(lines[j++] ?? '');
    const [lang = '', ...words] = info.split(/\s+/);
    if (SHELL_LANGS.has(lang)) {
      const exit = words.find((word) => word.startsWith('exit='));
      const script = lang === 'console' ? body.filter((l) => l.startsWith('$ ')).map((l) => l.slice(2)).join('\n') : body.join('\n');
      examples.push({ file, line: i + 1, lang, skip: words.includes('no-test'), expectedExit: exit ? Number(exit.slice(5)) : 0, postgres: words.includes('postgres'), script });
    } else if (body.some((l) => /^\s*(\$\s+)?payctl\s/.test(l))) {
      unrun.push({ file, line: i + 1 });
    }
    i = j;
  }
  return examples;
}

export function examplesOf(repo: string, file: string, unrun: UnrunBlock[] = []): DocExample[] {
  return extractExamples(file, readFileSync(join(repo, file), 'utf8'), unrun);
}
