import { createReadStream } from 'node:fs';
import type { InputFormat } from './input-source.js';

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const SPACE = 0x20;
const TAB = 0x09;

/**
 * Counts the records of a regular file for a progress bar's total, without parsing fields: one
 * byte scan, run beside the real read. A line counts when it has a non-blank byte; for CSV, line
 * breaks inside a quoted field do not end the record (a quote opens only at a field's start, as
 * csv-parse with relax_quotes reads it) and the header is not a record. The readers skip blank
 * lines the same way, so the totals agree on well-formed input.
 */
export async function countRecords(path: string, format: InputFormat, delimiter: string): Promise<number> {
  const quoting = format === 'csv';
  const separator = delimiter.charCodeAt(0);
  let records = 0;
  let hasContent = false;
  let atFieldStart = true;
  let inQuotes = false;
  let quoteInQuotes = false;

  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (inQuotes) {
        if (quoteInQuotes) {
          quoteInQuotes = false;
          if (byte === QUOTE) continue; // "" is an escaped quote
          inQuotes = false; // the quote closed the field; this byte is outside it
        } else {
          if (byte === QUOTE) quoteInQuotes = true;
          continue;
        }
      }
      if (byte === LF || byte === CR) {
        if (hasContent) records += 1;
        hasContent = false;
        atFieldStart = true;
      } else if (quoting && byte === QUOTE && atFieldStart) {
        inQuotes = true;
        hasContent = true;
        atFieldStart = false;
      } else if (quoting && byte === separator) {
        hasContent = true;
        atFieldStart = true;
      } else if (byte === SPACE || byte === TAB) {
        atFieldStart = false;
      } else {
        hasContent = true;
        atFieldStart = false;
      }
    }
  }
  if (hasContent) records += 1;
  return quoting ? Math.max(0, records - 1) : records;
}
