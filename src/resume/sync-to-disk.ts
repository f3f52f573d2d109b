import { open } from 'node:fs/promises';

/**
 * Makes what was written to `path` survive a power loss. The run state records how many records
 * the output holds, and a merge replaces the output: either must never be ahead of the disk.
 */
export async function syncFile(path: string): Promise<void> {
  const file = await open(path, 'r+');
  try {
    await file.sync();
  } finally {
    await file.close();
  }
}

/** Makes a rename in `directory` durable. Not possible on Windows, where the rename is all there is. */
export async function syncDirectory(directory: string): Promise<void> {
  try {
    const handle = await open(directory, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Opening or syncing a directory fails on Windows; the rename has happened either way.
  }
}
