/** One record read from the input, before any validation. */
export interface InputRow {
  /** 1-based record number in the input, header excluded: what `_row` reports. */
  row: number;
  /** The original columns, names and values verbatim and in input order. */
  columns: Record<string, unknown>;
  /** Set when the line could not be read as a record at all (a JSONL line that is not an object). */
  readError?: string;
}

/** A row ready for the pipeline: either a request item or the reason it cannot be sent. */
export interface PreparedItem {
  row: number;
  columns: Record<string, unknown>;
  /** The POST item: normalised identifiers, per-row and fixed parameters, meta. No empty values. */
  item?: Record<string, string | number>;
  /** Why the row is not sent; it becomes an `invalid_input` record. */
  invalid?: string;
}
