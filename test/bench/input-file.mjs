import { createReadStream, createWriteStream, existsSync, mkdirSync, renameSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { BALTIMORE_CSV, WORK } from './paths.mjs';

async function sourceLines() {
  if (!existsSync(BALTIMORE_CSV)) {
    throw new Error(`benchmark data not found: ${BALTIMORE_CSV} (set PROPDATA_BENCH_DATA to the Baltimore address CSV, plain or gzipped)`);
  }
  const lines = [];
  const file = createReadStream(BALTIMORE_CSV);
  const input = BALTIMORE_CSV.endsWith('.gz') ? file.pipe(createGunzip()) : file;
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    if (line.trim() !== '') lines.push(line);
  }
  return lines;
}

/**
 * A CSV of `rows` data rows: the Baltimore file's header, then its rows over and over. The
 * file is real data (about 2% of its rows repeat within it); a repeat of the whole file comes
 * 27,190 rows later, farther back than the 5,000 answers deduplication remembers, so every
 * row is sent. Built once and kept in the work folder.
 */
export async function inputFile(rows) {
  mkdirSync(WORK, { recursive: true });
  const path = join(WORK, `baltimore-${rows}.csv`);
  if (existsSync(path)) return path;
  const [header, ...data] = await sourceLines();
  const partial = `${path}.partial`;
  const out = createWriteStream(partial);
  out.write(`${header}\n`);
  for (let i = 0; i < rows; i++) {
    if (!out.write(`${data[i % data.length]}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'close');
  renameSync(partial, path);
  return path;
}
