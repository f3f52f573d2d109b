import { once } from 'node:events';
import type { stream, Worksheet } from 'exceljs';
import type { OutputRecord } from '../model/record.js';
import type { CsvColumn } from './csv-columns.js';
import { numberFormat, type CellKind } from './xlsx-cell-kinds.js';
import type { CellValue } from './xlsx-cell-value.js';
import { inputKind, type InputKind } from './xlsx-input-kinds.js';
import { MAX_SHEET_NAME, type SheetPlan } from './xlsx-layout.js';
import { ISO_DATE_FORMAT } from './xlsx-number-formats.js';
import { rowRenderer } from './xlsx-row.js';

/** Excel's 1,048,576 rows a sheet, the header included. */
export const EXCEL_MAX_DATA_ROWS = 1_048_575;
/** Rows held back to decide the input columns' kinds and every column's width. */
const SAMPLE_ROWS = 100;
const MIN_WIDTH = 6;
const MAX_WIDTH = 50;
const noop = () => undefined;

export interface SeriesLimits {
  /** Data rows a sheet takes before the next one continues it. */
  maxRows: number;
}

function widthOf(value: CellValue): number {
  if (value === null) return 0;
  if (value instanceof Date) return 10;
  return String(value).length;
}

/** Each input column's kind, from its values in the rows held back. */
function inputKinds(columns: readonly CsvColumn[], sample: readonly OutputRecord[]): Map<string, InputKind> {
  const kinds = new Map<string, InputKind>();
  for (const { source } of columns) {
    if (source.from !== 'input') continue;
    const values = sample.map((record) => record.input[source.name]);
    kinds.set(source.name, inputKind(source.name, values));
  }
  return kinds;
}

/**
 * exceljs commits a row into a PassThrough that archiver reads the sheet's zip entry from, and never
 * waits for it: rows written faster than they are deflated (or while an earlier sheet is still being
 * zipped) would pile up in memory. Its write side says when it is full; exceljs does not expose it,
 * hence the reach into the stream. Undefined when there is room (or the internals ever change). It
 * never rejects: a failing zip is reported by the writer's `failed`, which its caller races this with.
 * One wait per stream, however many rows are written while it is full: a listener per row was
 * Node's MaxListenersExceededWarning on every workbook of 50 rows or more (the first 100 rows are
 * written at once).
 */
const DRAINS = new WeakMap<NodeJS.EventEmitter, Promise<void>>();

function backlog(sheet: Worksheet): Promise<void> | undefined {
  const entry = (sheet as unknown as { stream?: { pipes?: NodeJS.EventEmitter[] } }).stream?.pipes?.[0];
  const state = (entry as { _writableState?: { needDrain?: boolean } } | undefined)?._writableState;
  if (!entry || !state?.needDrain) return undefined;
  let drained = DRAINS.get(entry);
  if (!drained) {
    drained = once(entry, 'drain').then(noop, noop);
    DRAINS.set(entry, drained);
    void drained.then(() => DRAINS.delete(entry));
  }
  return drained;
}

/**
 * One sheet of a workbook, continued on `name (2)`, `name (3)`... past Excel's row limit. The first
 * rows are held until the kinds of the input columns and the column widths are known (both are
 * written before the first row); then every record is a row, committed at once, so memory stays
 * flat whatever the number of rows. Each sheet has a frozen header row and an autofilter.
 */
export class SheetSeries {
  readonly #workbook: stream.xlsx.WorkbookWriter;
  readonly #plan: SheetPlan;
  readonly #kinds: readonly CellKind[];
  readonly #limits: SeriesLimits;
  #sample: OutputRecord[] = [];
  #render: ((record: OutputRecord) => CellValue[]) | undefined;
  #widths: number[] = [];
  /** Each column's number format (ISO dates, dollars), once the input columns' kinds are known. */
  #formats: (string | undefined)[] = [];
  #sheet: Worksheet | undefined;
  #rowsInSheet = 0;
  #part = 0;

  constructor(workbook: stream.xlsx.WorkbookWriter, plan: SheetPlan, kinds: readonly CellKind[], limits: SeriesLimits) {
    this.#workbook = workbook;
    this.#plan = plan;
    this.#kinds = kinds;
    this.#limits = limits;
  }

  /** A promise when the zip needs a moment before the next record. */
  write(record: OutputRecord): Promise<void> | undefined {
    if (this.#render) return this.#add(this.#render(record));
    this.#sample.push(record);
    return this.#sample.length < SAMPLE_ROWS ? undefined : this.#start();
  }

  /** Writes what is held and commits the last sheet (a header-only sheet when there were no records). */
  close(): void {
    // The last rows need no wait: committing the sheet ends its entry.
    if (!this.#render) void this.#start();
    if (!this.#sheet) this.#nextSheet();
    this.#commitSheet();
  }

  #start(): Promise<void> | undefined {
    const { columns } = this.#plan;
    const kinds = inputKinds(columns, this.#sample);
    this.#render = rowRenderer(columns, this.#kinds, kinds);
    this.#formats = columns.map(({ source }, i) =>
      source.from === 'input' ? (kinds.get(source.name) === 'date' ? ISO_DATE_FORMAT : undefined) : numberFormat(this.#kinds[i]!),
    );
    const rows = this.#sample.map(this.#render);
    this.#sample = [];
    this.#widths = columns.map(({ header }, i) => {
      const widest = rows.reduce((width, row) => Math.max(width, widthOf(row[i]!)), header.length);
      return Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, widest + 2));
    });
    let wait: Promise<void> | undefined;
    for (const row of rows) wait = this.#add(row) ?? wait;
    return wait;
  }

  #add(cells: CellValue[]): Promise<void> | undefined {
    if (!this.#sheet || this.#rowsInSheet === this.#limits.maxRows) this.#nextSheet();
    this.#sheet!.addRow(cells).commit();
    this.#rowsInSheet += 1;
    return backlog(this.#sheet!);
  }

  #nextSheet(): void {
    if (this.#sheet) this.#commitSheet();
    this.#part += 1;
    const suffix = this.#part === 1 ? '' : ` (${this.#part})`;
    const name = `${this.#plan.name.slice(0, MAX_SHEET_NAME - suffix.length)}${suffix}`;
    const sheet = this.#workbook.addWorksheet(name, { views: [{ state: 'frozen', ySplit: 1 }] });
    this.#widths.forEach((width, i) => (sheet.getColumn(i + 1).width = width));
    // A column's format is its cells' (exceljs gives a new cell its column's style).
    this.#formats.forEach((format, i) => {
      if (format !== undefined) sheet.getColumn(i + 1).numFmt = format;
    });
    sheet.addRow(this.#plan.columns.map((column) => column.header)).commit();
    this.#sheet = sheet;
    this.#rowsInSheet = 0;
  }

  #commitSheet(): void {
    const sheet = this.#sheet!;
    sheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: this.#rowsInSheet + 1, column: this.#plan.columns.length } };
    sheet.commit();
  }
}
