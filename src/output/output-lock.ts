import fs from 'node:fs';
import { chmod, lstat, mkdir, readFile, readlink, realpath, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import lockfile from 'proper-lockfile';
import { OutputError, UsageError } from '../errors/index.js';
import { cannotWrite } from './sink.js';
import { OUTPUT_LOCK } from '../policy/policy.js';

/**
 * Who holds a lock (`started`: when the process started), kept in the lock directory so that a
 * refusal can name it; `output`: the file it writes, as it named it, so that a run refused on
 * another name of that file (a hard link) is told which.
 */
interface Owner {
  pid: number;
  host: string;
  started: string;
  output?: string;
}

export interface OutputLock {
  release(): Promise<void>;
  /**
   * Locks the file now at the output's path by its identity too: once the run has made it, or
   * replaced it (a merge renames a new file over it), so that a hard link made to it from then on
   * is refused. Throws the refusal if another run holds that file.
   */
  holdIdentity(): Promise<void>;
  /** Set when a lock left by a process that is gone was taken over: that process, for a note. */
  tookOverFrom?: string;
}

const OWNER_FILE = 'owner.json';

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
export async function resolvedPath(path: string, links = 0): Promise<string> {
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

interface LockSettings {
  /** The output as the user named it, for messages. */
  path: string;
  /** The file it resolves to, kept in the owner file. */
  target: string;
  onLost: (error: OutputError) => void;
  refreshMs: number;
  /** The one-line error for a lock that cannot be made (not one held by another run). */
  failure: (error: unknown) => OutputError;
}

interface Taken {
  release: () => Promise<void>;
  /** The owner of a stale lock taken over. */
  previous?: Owner;
}

/**
 * Takes the lock directory `lockDir` for the output, or refuses naming the live process that
 * holds it. A lock whose owner is gone (killed, crashed, a power cut) is taken over.
 */
async function takeLock(lockDir: string, { path, target, onLost, refreshMs, failure }: LockSettings): Promise<Taken> {
  await refuseNonLock(lockDir, path);
  const previous = await readOwner(lockDir);
  // A dead owner on this machine: its lock is made stale, so that proper-lockfile takes it over
  // in its own way rather than after a minute.
  if (previous && isGone(previous)) await utimes(lockDir, 0, 0).catch(() => undefined);

  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(lockDir, {
      realpath: false,
      lockfilePath: lockDir,
      stale: OUTPUT_LOCK.staleMs,
      update: refreshMs,
      fs: LOCK_FS,
      onCompromised: (error) =>
        onLost(new OutputError(`lost the lock on ${path} (${error.message}); another run may be writing it`, error)),
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw failure(error);
    const owner = await readOwner(lockDir);
    const elsewhere = owner?.output !== undefined && owner.output !== target ? ` (as ${owner.output})` : '';
    throw new OutputError(
      `${path} is being written by ${owner ? describeOwner(owner) : 'another propdata process'}${elsewhere}; wait for it or stop it`,
      error,
    );
  }
  const owner: Owner = {
    pid: process.pid,
    host: hostname(),
    started: new Date(Date.now() - process.uptime() * 1000).toISOString(),
    output: target,
  };
  try {
    // proper-lockfile keeps the lock alive by its directory's mtime and calls the lock lost when
    // that changes under it; adding the owner file changes it, so it is set back afterwards.
    const { mtime } = await stat(lockDir);
    await writeFile(join(lockDir, OWNER_FILE), JSON.stringify(owner));
    await utimes(lockDir, mtime, mtime);
  } catch (error) {
    await release();
    throw failure(error);
  }
  // A lock that could not be removed (or was lost) is no reason to fail a finished run: the
  // next run finds its owner gone and takes it over.
  return { release: () => release().catch(() => undefined), ...(previous ? { previous } : {}) };
}

/**
 * Where a file's identity locks are kept: a folder of the machine, not of a user or of a
 * PROPDATA_HOME. Two runs writing one file through two names must meet whoever started them: a
 * cron job and a shell with different homes, two users sharing a project folder. So it is the
 * system's temporary folder (emptied at boot, when no run holds a lock anyway), made writable by
 * every user and sticky as /tmp itself is, so that any user's run can lock there and none can
 * remove another's lock. Where that folder differs by user (a TMPDIR of one's own, macOS's
 * per-user one, a service's PrivateTmp), runs of different users on two names of one file do
 * not meet; on one name they still meet at its path lock. Another machine on a shared file
 * system is met by the path lock only: a device and inode number mean nothing across machines.
 */
const IDENTITY_LOCKS = join(tmpdir(), 'propdata-locks');

/** The identity lock of the file at `path` (its device and inode), or undefined when there is no file, or no inode to tell it by. */
async function identityLockOf(path: string, failure: (error: unknown) => OutputError): Promise<string | undefined> {
  let found;
  try {
    found = await stat(path, { bigint: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw cannotWrite(error, path);
  }
  if (found.ino === 0n) return undefined;
  try {
    const made = await mkdir(IDENTITY_LOCKS, { recursive: true });
    if (made !== undefined) await chmod(IDENTITY_LOCKS, 0o1777);
  } catch (error) {
    throw failure(error);
  }
  return join(IDENTITY_LOCKS, `${found.dev}-${found.ino}.lock`);
}

/**
 * Makes this process the only writer of the output file at `path`, which need not exist yet: two
 * runs appending to one file would interleave their records. Two locks, each a directory holding
 * the owner's pid and start time:
 * - by name: `<file>.lock` beside the file `path` resolves to (resolvedPath), so that every
 *   spelling of the path meets it (a symlink, `dir/..`), even before the file exists and from
 *   another machine on a shared file system;
 * - by identity: the file's device and inode (IDENTITY_LOCKS), so that another name of the same
 *   file (a hard link, a bind mount) meets it too. A file made or replaced later is locked so
 *   by holdIdentity.
 * A lock whose owner is gone is taken over and said so; a live owner is named in the refusal (exit 1).
 *
 * `onLost` is called if a lock is lost while held (its directory removed, or not refreshed for
 * a minute, so another run may have taken it over): the run should stop writing.
 */
export async function lockOutput(
  path: string,
  onLost: (error: OutputError) => void = () => undefined,
  { refreshMs = OUTPUT_LOCK.refreshMs }: { refreshMs?: number } = {},
): Promise<OutputLock> {
  let target: string;
  try {
    target = await resolvedPath(path);
  } catch (error) {
    throw cannotWrite(error, path);
  }
  const settings: LockSettings = { path, target, onLost, refreshMs, failure: (error) => cannotWrite(error, path) };
  const byName = await takeLock(`${target}.lock`, settings);
  // The folder of identity locks is no place the user chose: a failure there names it.
  const byIdentity = { ...settings, failure: (error: unknown) => cannotWrite(error, `${IDENTITY_LOCKS} to lock ${path}`) };
  const held = new Map<string, Taken>();
  const release = async () => {
    await Promise.all([...held.values()].map((taken) => taken.release()));
    await byName.release();
  };
  const holdIdentity = async () => {
    const lockDir = await identityLockOf(path, byIdentity.failure);
    if (lockDir !== undefined && !held.has(lockDir)) held.set(lockDir, await takeLock(lockDir, byIdentity));
  };
  try {
    await holdIdentity();
  } catch (error) {
    await release();
    throw error;
  }
  const previous = byName.previous ?? [...held.values()][0]?.previous;
  return { release, holdIdentity, ...(previous ? { tookOverFrom: describeOwner(previous) } : {}) };
}
