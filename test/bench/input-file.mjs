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
  return writeInput(`baltimore-${rows}.csv`, (data) => Array.from({ length: rows }, (_, i) => data[i % data.length]));
}

/**
 * A CSV of `rows` distinct addresses: the Baltimore file's rows, each once, then again with a unit
 * on the address (` UNIT 1`, ` UNIT 2`...), skipping any address and ZIP code already written: a
 * nightly file is mostly distinct addresses, and each is an item the store has to keep.
 */
export async function distinctInputFile(rows) {
  return writeInput(`baltimore-distinct-${rows}.csv`, (data) => {
    const seen = new Set();
    const lines = [];
    for (let round = 0; lines.length < rows; round++) {
      for (const line of data) {
        const cells = line.split(',');
        if (round > 0) cells[0] = `${cells[0]} UNIT ${round}`;
        const key = `${cells[0]},${cells[3]}`;
        if (seen.has(key)) continue;
        seen.add(key);
        lines.push(cells.join(','));
        if (lines.length === rows) break;
      }
    }
    return lines;
  });
}

/** The CSV `name` in the work folder, its rows made from the Baltimore rows; built once. */
async function writeInput(name, rowsOf) {
  mkdirSync(WORK, { recursive: true });
  const path = join(WORK, name);
  if (existsSync(path)) return path;
  const [header, ...data] = await sourceLines();
  const partial = `${path}.partial`;
  const out = createWriteStream(partial);
  out.write(`${header}\n`);
  for (const row of rowsOf(data)) {
    if (!out.write(`${row}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'close');
  renameSync(partial, path);
  return path;
}
