// CSV as the bulk commands read it (RFC 4180 quoting), each row with the line it starts on.

export interface CsvRow {
  line: number;
  cells: string[];
}

/** Splits CSV text into rows; blank lines are skipped; an unclosed quote is an Error naming its line. */
export function parseCsv(source: string): CsvRow[] {
  const text = source.replace(/^\uFEFF/, '');
  const rows: CsvRow[] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let rowLine = 1;
  const endRow = () => {
    cells.push(cell);
    if (cells.length > 1 || cells[0]!.trim() !== '') rows.push({ line: rowLine, cells });
    cells = [];
    cell = '';
  };
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else if (char === '"') quoted = false;
      else {
        if (char === '\n') line += 1;
        cell += char;
      }
      continue;
    }
    if (char === '"' && cell.trim() === '') {
      quoted = true;
      cell = '';
    } else if (char === ',') {
      cells.push(cell);
      cell = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[i + 1] === '\n') i += 1;
      endRow();
      line += 1;
      rowLine = line;
    } else cell += char;
  }
  if (quoted) throw new Error(`line ${rowLine}: a quoted field is not closed`);
  if (cell !== '' || cells.length > 0) endRow();
  return rows;
}
