import type { Readable } from 'node:stream';
import yauzl, { type Entry, type ZipFile } from 'yauzl';

/**
 * A workbook's zip, read through its central directory: any part can be opened in any order,
 * whatever order the writer stored them in, and only the part being read is in memory. The
 * directory sits at the end of the file, so a copy cut short fails here, at once, rather than
 * after its first rows.
 */
export interface WorkbookZip {
  /** Uncompressed size of a part, or undefined when the zip has no such part. */
  size(part: string): number | undefined;
  /** The part's bytes, inflated; the stream fails if they do not match the directory (a damaged file). */
  open(part: string): Promise<Readable>;
  close(): void;
}

/** Why the zip cannot be read, in words for the message (yauzl's own are for programmers). */
class DamagedZip extends Error {}

/** Part names are case-insensitive (ECMA-376 part 2, 6.2.2.3) and have no leading slash in the zip. */
export const partKey = (name: string): string => name.replace(/^\/+/, '').toLowerCase();

function damaged(error: Error): DamagedZip {
  return new DamagedZip(error.message, { cause: error });
}

export async function openWorkbookZip(path: string): Promise<WorkbookZip> {
  const zip = await new Promise<ZipFile>((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, autoClose: false }, (error, opened) => (error ? reject(damaged(error)) : resolve(opened)));
  });
  const entries = new Map<string, Entry>();
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (entry: Entry) => {
        entries.set(partKey(entry.fileName), entry);
        zip.readEntry();
      });
      zip.on('end', resolve);
      zip.on('error', (error: Error) => reject(damaged(error)));
      zip.readEntry();
    });
  } catch (error) {
    zip.close();
    throw error;
  }
  return {
    size: (part) => entries.get(partKey(part))?.uncompressedSize,
    open: (part) =>
      new Promise<Readable>((resolve, reject) => {
        const entry = entries.get(partKey(part));
        if (!entry) {
          reject(new DamagedZip(`it has no part ${part}`));
          return;
        }
        zip.openReadStream(entry, (error, stream) => (error ? reject(damaged(error)) : resolve(stream)));
      }),
    close: () => zip.close(),
  };
}
