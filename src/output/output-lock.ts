import fs from 'node:fs';
import { lstat, readFile, readlink, realpath, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import lockfile from 'proper-lockfile';
import { OutputError, UsageError } from '../errors/index.js';
import { cannotWrite } from './sink.js';

/** Who holds a lock (`started`: when the process started), kept in the lock directory so that a refusal can name it. */
interface Owner {
  pid: number;
  host: string;
  started: string;
}

export interface OutputLock {
  release(): Promise<void>;
  /** Set when a lock left by a process that is gone was taken over: that process, for a note. */
  tookOverFrom?: string;
}

const OWNER_FILE = 'owner.json';

/**
 * A stall or a suspend shorter than this does not cost the lock (proper-lockfile gives up a lock
 * it could not refresh for this long). A holder that died on this machine is seen by its pid at
 * once, so the long threshold only delays taking over from another machine's dead run.
 */
const STALE_MS = 60_000;

/** How often the lock's mtime is refreshed: often enough that a busy minute does not cost it. */
const REFRESH_MS = 10_000;

/**
 * proper-lockfile removes its lock directory with rmdir, which fails while the owner file is in
 * it: on release, when taking over a stale lock, and at exit. Removing the whole directory keeps
 * all three working.
 */
const LOCK_FS = {
  ...fs,
  rmdir: (path: string, done: (error: NodeJS.ErrnoException | null) => void) => fs.rm(path, { recursive: true, force: true }, done),
  rmdirSync: (path: string) => fs.rmSync(path, { recursive: true, force: true }),
};

function describeOwner(owner: Owner): string {
  const started = new Date(owner.started);
  const today = started.toDateString() === new Date().toDateString();
  const time = started.toTimeString().slice(0, 8);
  const when = today ? time : `${started.toISOString().slice(0, 10)} ${time}`;
  return `propdata pid ${owner.pid}${owner.host === hostname() ? '' : ` on ${owner.host}`}, started ${when}`;
}

async function readOwner(lockDir: string): Promise<Owner | undefined> {
  try {
    return JSON.parse(await readFile(join(lockDir, OWNER_FILE), 'utf8')) as Owner;
  } catch {
    // Not there yet (its holder is between mkdir and writing it), or no lock at all.
    return undefined;
  }
}

/** Whether a process on this machine with this pid is gone. EPERM: it runs, as another user. */
function isGone(owner: Owner): boolean {
  if (owner.host !== hostname()) return false;
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Links followed no further than this: a loop of links is an error, not a hang. */
const MAX_LINKS = 40;

/**
 * The file `path` names, every link followed, so that every spelling of one file (a symlink to
 * it, a symlinked directory, `./`) meets at one lock. The file, or the file a link points to, may
 * not exist yet: then its directory's real path and its name.
 */
async function resolvedPath(path: string, links = 0): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const link = await readlink(path).catch(() => undefined);
  if (link !== undefined && links < MAX_LINKS) return resolvedPath(resolve(dirname(path), link), links + 1);
  return join(await realpath(dirname(path)), basename(path));
}

/**
 * A lock is a directory propdata makes; anything else at its path (a file someone left there)
 * would read as a lock held by another run, or be removed as a stale one: say what it is.
 */
async function refuseNonLock(lockDir: string, path: string): Promise<void> {
  const found = await lstat(lockDir).catch(() => undefined);
  if (found && !found.isDirectory()) {
    throw new UsageError(
      `cannot lock ${path}: ${lockDir} is a file, not propdata's lock (a directory); move or delete it, or choose another --output`,
      'E_OUTPUT_PATH',
    );
  }
}

/**
 * Makes this process the only writer of the output file at `path`, which need not exist yet: two
 * runs appending to one file would interleave their records. The lock is `<file>.lock` beside the
 * file `path` resolves to (resolvedPath), a directory holding the owner's pid and start time. A lock whose owner is gone (killed, crashed,
 * a power cut) is taken over and said so; a live owner is named in the refusal (exit 1).
 *
 * `onLost` is called if the lock is lost while held (its directory removed, or not refreshed for
 * a minute, so another run may have taken it over): the run should stop writing.
 */
export async function lockOutput(
  path: string,
  onLost: (error: OutputError) => void = () => undefined,
  { refreshMs = REFRESH_MS }: { refreshMs?: number } = {},
): Promise<OutputLock> {
  let target: string;
  try {
    target = await resolvedPath(path);
  } catch (error) {
    throw cannotWrite(error, path);
  }
  const lockDir = `${target}.lock`;
  await refuseNonLock(lockDir, path);
  const previous = await readOwner(lockDir);
  // A dead owner on this machine: its lock is made stale, so that proper-lockfile takes it over
  // in its own way rather than after a minute.
  if (previous && isGone(previous)) await utimes(lockDir, 0, 0).catch(() => undefined);

  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(target, {
      realpath: false,
      stale: STALE_MS,
      update: refreshMs,
      fs: LOCK_FS,
      onCompromised: (error) =>
        onLost(new OutputError(`lost the lock on ${path} (${error.message}); another run may be writing it`, error)),
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw cannotWrite(error, path);
    const owner = await readOwner(lockDir);
    throw new OutputError(
      `${path} is being written by ${owner ? describeOwner(owner) : 'another propdata process'}; wait for it or stop it`,
      error,
    );
  }
  const owner: Owner = { pid: process.pid, host: hostname(), started: new Date(Date.now() - process.uptime() * 1000).toISOString() };
  try {
    // proper-lockfile keeps the lock alive by its directory's mtime and calls the lock lost when
    // that changes under it; adding the owner file changes it, so it is set back afterwards.
    const { mtime } = await stat(lockDir);
    await writeFile(join(lockDir, OWNER_FILE), JSON.stringify(owner));
    await utimes(lockDir, mtime, mtime);
  } catch (error) {
    await release();
    throw cannotWrite(error, path);
  }
  return {
    // A lock that could not be removed (or was lost) is no reason to fail a finished run: the
    // next run finds its owner gone and takes it over.
    release: () => release().catch(() => undefined),
    ...(previous ? { tookOverFrom: describeOwner(previous) } : {}),
  };
}
