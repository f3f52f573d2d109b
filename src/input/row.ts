/** One record read from the input, before any validation. */
export interface InputRow {
  /** 1-based record number in the input, header and blank lines excluded: what `_row` reports. */
  row: number;
  /**
   * The original columns, names and values verbatim and in input order. An object that inherits
   * nothing (emptyColumns), so any name is a column (`__proto__`, `constructor`) and a name the
   * row lacks reads as undefined.
   */
  columns: Record<string, unknown>;
  /**
   * Set when the line could not be read as a record (a JSONL line that is not an object, a CSV row
   * with the wrong number of fields, a NUL byte). Says what is wrong and what to do,
   * without the row number: the preparer adds `row N (line L):`.
   */
  readError?: string;
  /** 1-based physical line where the record starts, when the reader knows it (for messages). */
  line?: number;
}

/** A row ready for the pipeline: either a request item or the reason it cannot be sent. */
export interface PreparedItem {
  row: number;
  columns: Record<string, unknown>;
  /** The POST item: normalized identifiers, per-row and fixed parameters, meta. No empty values. */
  item?: Record<string, string | number>;
  /** Why the row is not sent; it becomes an `invalid_input` record. */
  invalid?: string;
}

/** The prototype of a row's columns: no members, and no prototype of its own. */
const INHERITS_NOTHING: object = Object.freeze(Object.create(null) as object);

/**
 * An empty set of columns for a reader to fill: `columns["__proto__"] = value` makes a column, as
 * on an object without a prototype. Such an object (`Object.create(null)`) is a hash table to V8:
 * a row took about 1.4 KB, and twice the time to fill; one whose prototype inherits nothing keeps
 * the compact layout that rows of one header share (0.6 KB a row with the row's own record).
 */
export function emptyColumns(): Record<string, unknown> {
  return Object.create(INHERITS_NOTHING) as Record<string, unknown>;
}
