/** Plain columns padded to the widest cell, the given columns (numbers) aligned right: readable in a terminal, greppable in a pipe. */
export function textTable(rows: readonly (readonly string[])[], rightAligned: readonly number[] = []): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, column) => (rightAligned.includes(column) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  return `${rows.map(line).join('\n')}\n`;
}
