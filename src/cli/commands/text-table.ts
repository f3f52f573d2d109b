export interface TableLayout {
  /** Columns (by index) aligned right: numbers. */
  rightAligned?: readonly number[];
  /**
   * The terminal's width (io.ts terminalWidth). A wider table narrows its `flexible` columns, the
   * widest first, so that no line reaches the terminal's last column and wraps to the margin.
   * Undefined (a pipe, a file): nothing is narrowed, and each row stays one greppable line.
   */
  width?: number | undefined;
  /** Columns of free text that may be narrowed: their text wraps at spaces within the column. */
  flexible?: readonly number[];
  /** Narrowed text is cut, ending in `…`, rather than wrapped: one line a row. */
  cut?: boolean;
}

/** A column is not narrowed below this: past it the table is left wider than the terminal. */
const MIN_FLEXIBLE = 10;

/** `text` in lines of at most `room` characters, broken at spaces (a longer word is cut). */
export function wrap(text: string, room: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const joined = line === '' ? word : `${line} ${word}`;
    if (joined.length <= room) {
      line = joined;
      continue;
    }
    if (line !== '') lines.push(line);
    line = word;
    while (line.length > room) {
      lines.push(line.slice(0, room));
      line = line.slice(room);
    }
  }
  return [...lines, line];
}

/** The columns' widths: each its widest cell, the flexible ones narrowed (widest first) until the table fits `width`. */
function columnWidths(rows: readonly (readonly string[])[], { width, flexible = [] }: TableLayout): number[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  if (width === undefined) return widths;
  // A terminal wraps a line that fills its last column: that column is kept free.
  let excess = widths.reduce((sum, columnWidth) => sum + columnWidth, 2 * (widths.length - 1)) - (width - 1);
  while (excess > 0) {
    const widest = flexible.filter((column) => widths[column]! > MIN_FLEXIBLE).sort((a, b) => widths[b]! - widths[a]!)[0];
    if (widest === undefined) break;
    widths[widest]! -= 1;
    excess -= 1;
  }
  return widths;
}

/** Plain columns padded to the widest cell: readable in a terminal, greppable in a pipe. */
export function textTable(rows: readonly (readonly string[])[], layout: TableLayout = {}): string {
  const { rightAligned = [], cut = false } = layout;
  const widths = columnWidths(rows, layout);
  const fitted = (cell: string, column: number): string[] => {
    const room = widths[column]!;
    if (cell.length <= room) return [cell];
    return cut ? [`${cell.slice(0, room - 1)}…`] : wrap(cell, room);
  };
  const lines = (row: readonly string[]): string[] => {
    const cells = row.map(fitted);
    const height = Math.max(...cells.map((cell) => cell.length));
    return Array.from({ length: height }, (_, line) =>
      cells
        .map((cell, column) => {
          const text = cell[line] ?? '';
          return rightAligned.includes(column) ? text.padStart(widths[column]!) : text.padEnd(widths[column]!);
        })
        .join('  ')
        .trimEnd(),
    );
  };
  return `${rows.flatMap(lines).join('\n')}\n`;
}
