import { csvColumns, type CsvShape } from './csv-columns.js';
import { csvLine, csvLineRenderer } from './csv-line.js';
import { UTF8_BOM } from './excel-guard.js';
import type { OutputWriter } from './record-writer.js';
import type { Sink } from './text-sink.js';
import { WrittenRecords } from './written-records.js';

export interface CsvWriterOptions extends CsvShape {
  /** Continuing a resumed file: its BOM and header are there already. */
  append: boolean;
  excel: boolean;
}

/**
 * One CSV line per record, each written whole, so that a run which stops by itself never leaves
 * half a record behind. The header comes from the catalog, so it is written before any answer
 * arrives and is the same whatever the answers hold.
 */
export async function createCsvWriter(sink: Sink, options: CsvWriterOptions): Promise<OutputWriter> {
  const columns = csvColumns(options);
  const line = csvLineRenderer(columns, options.excel);
  const written = new WrittenRecords(sink);
  if (!options.append) {
    const header = `${options.excel ? UTF8_BOM : ''}${csvLine(
      columns.map((column) => column.header),
      options.excel,
    )}`;
    written.wrote(header);
    await sink.write(header);
  }
  return {
    failed: sink.failed,
    write: (record) => {
      const text = line(record);
      written.wrote(text, record);
      return sink.write(text);
    },
    close: () => sink.close(),
    unwritten: () => written.unwritten(),
  };
}
