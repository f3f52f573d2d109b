import { extname } from 'node:path';
import type { Writable } from 'node:stream';
import type { Level } from '../catalog/index.js';
import { createCsvWriter } from './csv-writer.js';
import { createJsonWriter } from './json-writer.js';
import { createJsonlWriter } from './jsonl-writer.js';
import type { OutputWriter } from './record-writer.js';
import { openSink } from './sink.js';

export type { OutputWriter, RecordWriter } from './record-writer.js';
export type OutputFormat = 'csv' | 'json' | 'jsonl';

export interface OutputSettings {
  /** A file, or stdout when absent or `-`. */
  path?: string;
  format?: OutputFormat;
  stdout: Writable;
  inputColumns: readonly string[];
  level: Level;
  sections: readonly string[];
  withMeta: boolean;
  append: boolean;
  excel: boolean;
}

/** `--format`, else the output file's extension, else CSV. */
export function outputFormatFor(path: string | undefined, format: OutputFormat | undefined): OutputFormat {
  if (format) return format;
  const extension = extname(path ?? '').toLowerCase();
  if (extension === '.json') return 'json';
  return extension === '.jsonl' || extension === '.ndjson' ? 'jsonl' : 'csv';
}

export async function openOutput(settings: OutputSettings): Promise<OutputWriter> {
  const sink = await openSink(settings.path, settings.stdout, settings.append);
  switch (outputFormatFor(settings.path, settings.format)) {
    case 'json':
      return createJsonWriter(sink);
    case 'jsonl':
      return createJsonlWriter(sink);
    case 'csv':
      return createCsvWriter(sink, settings);
  }
}
