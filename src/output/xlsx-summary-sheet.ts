import type { stream } from 'exceljs';
import { textCell, type CellValue } from './xlsx-cell-value.js';

/** `records.ok`, `requests`...: the summary's members by dotted path, in the report's order. */
function summaryRows(value: object, prefix = ''): [string, CellValue][] {
  return Object.entries(value).flatMap(([key, member]): [string, CellValue][] => {
    const name = `${prefix}${key}`;
    if (member !== null && typeof member === 'object' && !Array.isArray(member)) return summaryRows(member as object, `${name}.`);
    if (member === undefined || member === null) return [[name, null]];
    if (typeof member === 'number' || typeof member === 'boolean') return [[name, member]];
    return [[name, Array.isArray(member) ? member.join(', ') : textCell(member)]];
  });
}

/** The `summary` sheet: the run summary as `--report` has it, one member a row. */
export function addSummarySheet(workbook: stream.xlsx.WorkbookWriter, summary: object): void {
  const sheet = workbook.addWorksheet('summary', { views: [{ state: 'frozen', ySplit: 1 }] });
  const rows = summaryRows(summary);
  sheet.getColumn(1).width = Math.max(10, ...rows.map(([name]) => name.length + 2));
  sheet.getColumn(2).width = 60;
  sheet.addRow(['item', 'value']).commit();
  for (const row of rows) sheet.addRow(row).commit();
  sheet.commit();
}
