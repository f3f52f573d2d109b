import type { EventEmitter } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import type { CsvShape } from './csv-columns.js';
import type { OutputWriter } from './record-writer.js';
import { cellKinds } from './xlsx-cell-kinds.js';
import { sheetPlans, type SheetsLayout } from './xlsx-layout.js';
import { numberFormatsOnly } from './xlsx-number-formats.js';
import { EXCEL_MAX_DATA_ROWS, SheetSeries } from './xlsx-sheet-series.js';
import { openSpool, type Spool } from './xlsx-spool.js';
import { addSummarySheet } from './xlsx-summary-sheet.js';
import { openXlsxTarget } from './xlsx-target.js';

export interface XlsxSettings extends CsvShape {
  /** A file, or stdout when absent or `-`. */
  path?: string;
  stdout: Writable;
  sheets: SheetsLayout;
  /** `--short-names`: columns named in words (`value_price_mean`) rather than by dotted path. */
  shortNames?: boolean;
  /** Data rows a sheet takes before the next one continues it: Excel's limit unless a test wants fewer. */
  maxRowsPerSheet?: number;
}

const noop = () => undefined;

function spoolPath(path: string | undefined): string {
  return path === undefined || path === '-' ? join(tmpdir(), `propdata-sheets-${process.pid}.jsonl`) : `${path}.propdata-sheets`;
}

/**
 * A workbook streamed with exceljs's WorkbookWriter: each record is a row committed at once, so
 * memory does not grow with the rows. `close` writes the data sheets; `finish` adds the `summary`
 * sheet (the summary exists only once the records are all written) and completes the file. A
 * workbook cannot be appended to, so it is never resumed.
 */
export async function createXlsxWriter(settings: XlsxSettings): Promise<OutputWriter> {
  const target = await openXlsxTarget(settings.path, settings.stdout);
  // Inline strings, not a shared table: the table would hold every distinct address until the end.
  // Styles, for the number formats of dates (ISO) and dollars (thousands separators).
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: target.stream, useStyles: true, useSharedStrings: false });
  numberFormatsOnly(workbook);
  // The zip reports its own failures as events; unheard, one would end the process.
  (workbook as unknown as { zip: EventEmitter }).zip.on('error', (error) => target.fail(error));
  const limits = { maxRows: settings.maxRowsPerSheet ?? EXCEL_MAX_DATA_ROWS };
  const [live, ...later] = sheetPlans(settings, settings.sheets, settings.shortNames).map(
    (plan) => new SheetSeries(workbook, plan, cellKinds(plan.columns, settings.level), limits),
  );
  let spool: Spool | undefined;
  try {
    spool = later.length > 0 ? await openSpool(spoolPath(settings.path), (error) => target.fail(error)) : undefined;
  } catch (error) {
    target.stream.destroy();
    throw error;
  }
  const guarded = (wait: Promise<unknown> | undefined): Promise<void> | undefined => wait && Promise.race([wait.then(noop), target.failed]);
  const checked = () => {
    const failure = target.failure();
    if (failure) throw failure;
  };

  return {
    failed: target.failed,
    write(record) {
      const failure = target.failure();
      if (failure) return Promise.reject(failure);
      const sheet = live!.write(record);
      const spooled = spool?.write(record);
      return guarded(sheet && spooled ? Promise.all([sheet, spooled]) : (sheet ?? spooled));
    },
    async close() {
      try {
        checked();
        live!.close();
        for (const sheet of later) {
          for await (const record of spool!.replay()) await guarded(sheet.write(record));
          sheet.close();
        }
        checked();
      } catch (error) {
        await spool?.remove();
        throw error;
      }
    },
    async finish(summary) {
      try {
        checked();
        addSummarySheet(workbook, summary);
        await guarded(workbook.commit());
        await guarded(target.finished());
      } finally {
        await spool?.remove();
      }
    },
  };
}
