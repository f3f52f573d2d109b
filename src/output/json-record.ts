import type { OutputRecord } from '../model/record.js';

/**
 * A record as JSON: `_row`, `_status`, `_error` and `_input` (the original columns), then the
 * chunk's members exactly as the service sent them. `_error` is null rather than absent so that
 * every record has the same leading keys.
 */
export function jsonRecord(record: OutputRecord): string {
  return JSON.stringify({ _row: record.row, _status: record.status, _error: record.error ?? null, _input: record.input, ...record.chunk });
}
