import { csvColumns, type CsvShape } from './csv-columns.js';
import { csvLine } from './csv-line.js';
import { neutraliseFormula, UTF8_BOM } from './excel-guard.js';
import type { RecordWriter } from './record-writer.js';
import type { Sink } from './sink.js';

export interface CsvWriterOptions extends CsvShape {
  /** Continuing a resumed file: its BOM and header are there already. */
  append: boolean;
  excel: boolean;
}

/** Past this much unwritten text a write waits for it to go out: memory stays bounded. */
const MAX_PENDING_CHARS = 256 * 1024;

/**
 * Lines handed over in one turn of the event loop (a batch's records, usually) go to the sink
 * in one write. A write per line costs a trip through the file stream each, and waiting for
 * 'drain' every few lines: a tenth of a 100,000-row run. Lines are never split, so what reaches
 * the file is always whole records; close() writes what is still pending.
 */
function coalesce(sink: Sink): Sink {
  let pending = '';
  let flushed: Promise<void> | undefined;
  let failure: unknown;
  const flush = async () => {
    const text = pending;
    pending = '';
    flushed = undefined;
    if (text !== '') await sink.write(text);
  };
  return {
    write(text) {
      if (failure !== undefined) return Promise.reject(failure);
      pending += text;
      // Nobody may await this flush: its failure is kept for the next write or close.
      flushed ??= new Promise((resolve) => setImmediate(resolve)).then(flush).catch((error: unknown) => {
        failure ??= error;
      });
      return pending.length < MAX_PENDING_CHARS ? Promise.resolve() : flushed.then(() => (failure === undefined ? undefined : Promise.reject(failure)));
    },
    async close() {
      await flushed;
      if (failure === undefined) await flush().catch((error: unknown) => (failure ??= error));
      if (failure !== undefined) throw failure;
      await sink.close();
    },
  };
}

/**
 * One CSV line per record, each written whole, so that a run which stops by itself never leaves
 * half a record behind. The header comes from the catalog, so it is written before any answer
 * arrives and is the same whatever the answers hold.
 */
export async function createCsvWriter(sink: Sink, options: CsvWriterOptions): Promise<RecordWriter> {
  const columns = csvColumns(options);
  const line = (cells: string[]) => csvLine(options.excel ? cells.map(neutraliseFormula) : cells);
  if (!options.append) await sink.write(`${options.excel ? UTF8_BOM : ''}${line(columns.map((column) => column.header))}`);
  const out = coalesce(sink);
  return {
    write: (record) => out.write(line(columns.map((column) => column.cell(record)))),
    close: () => out.close(),
  };
}
