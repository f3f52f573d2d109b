import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A store path in a fresh directory of its own (the directory itself not yet created, as a first run finds it). */
export function tempStorePath(): string {
  return join(mkdtempSync(join(tmpdir(), 'propdata-store-')), 'home', 'propdata.db');
}
