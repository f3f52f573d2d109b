import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, renameSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { exitCodeFor } from '../../src/cli/exit-codes.js';
import { OutputError } from '../../src/errors/index.js';
import { lockOutput, type OutputLock } from '../../src/output/output-lock.js';

const held: OutputLock[] = [];
afterEach(async () => {
  await Promise.all(held.splice(0).map((lock) => lock.release()));
});

async function lock(path: string): Promise<OutputLock> {
  const taken = await lockOutput(path);
  held.push(taken);
  return taken;
}

const workdir = () => mkdtempSync(join(tmpdir(), 'propdata-lock-'));

/** The pid of a process that has exited: what a lock left by a kill -9 holds. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe('one writer per output file', () => {
  it('refuses a second lock on the same file, naming the process that holds it', async () => {
    const output = join(workdir(), 'out.csv');
    const first = await lock(output);
    expect(first.tookOverFrom).toBeUndefined();
    const refusal = lockOutput(output);
    await expect(refusal).rejects.toBeInstanceOf(OutputError);
    expect(exitCodeFor(await refusal.catch((error: unknown) => error))).toBe(1);
    await expect(refusal).rejects.toThrow(
      new RegExp(
        `^${output.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is being written by propdata pid ${process.pid}, started \\d\\d:\\d\\d:\\d\\d; wait for it or stop it$`,
      ),
    );
  });

  it('works for a file that does not exist yet, and meets a lock taken through another spelling of its directory', async () => {
    const dir = workdir();
    symlinkSync(dir, `${dir}-link`);
    await lock(join(dir, 'new.csv'));
    expect(existsSync(join(dir, 'new.csv'))).toBe(false);
    await expect(lockOutput(join(`${dir}-link`, 'new.csv'))).rejects.toThrow(/is being written by propdata pid/);
  });

  it('meets a lock taken through a symlink to the file, whether the file exists yet or not', async () => {
    const [a, b] = [workdir(), workdir()];
    const real = join(b, 'real.csv');
    symlinkSync(real, join(a, 'link.csv'));
    // The link's target does not exist yet: the run writing through the link makes it.
    await lock(join(a, 'link.csv'));
    await expect(lockOutput(real)).rejects.toThrow(/real\.csv is being written by propdata pid/);
    await Promise.all(held.splice(0).map((taken) => taken.release()));
    writeFileSync(real, 'address\n');
    await lock(real);
    await expect(lockOutput(join(a, 'link.csv'))).rejects.toThrow(/link\.csv is being written by propdata pid/);
    expect(existsSync(join(a, 'link.csv.lock'))).toBe(false);
  });

  it('says what a file at the lock path is, and what to do, instead of naming another run', async () => {
    const output = join(workdir(), 'out.csv');
    writeFileSync(`${output}.lock`, 'x\n');
    const refusal = lockOutput(output);
    await expect(refusal).rejects.toThrow(
      /^cannot lock .*out\.csv: .*out\.csv\.lock is a file, not propdata's lock \(a directory\); move or delete it, or choose another --output$/,
    );
    expect(exitCodeFor(await refusal.catch((error: unknown) => error))).toBe(2);
    expect(readFileSync(`${output}.lock`, 'utf8')).toBe('x\n');
  });

  it('takes over a lock left by a process that is gone, and says whose it was', async () => {
    const output = join(workdir(), 'out.csv');
    const pid = deadPid();
    mkdirSync(`${output}.lock`);
    writeFileSync(join(`${output}.lock`, 'owner.json'), JSON.stringify({ pid, host: hostname(), started: new Date().toISOString() }));
    const taken = await lock(output);
    expect(taken.tookOverFrom).toMatch(new RegExp(`^propdata pid ${pid}, started \\d\\d:\\d\\d:\\d\\d$`));
    expect(JSON.parse(readFileSync(join(`${output}.lock`, 'owner.json'), 'utf8'))).toMatchObject({ pid: process.pid });
  });

  it('release removes the lock, and the file can be locked again', async () => {
    const output = join(workdir(), 'out.csv');
    const first = await lockOutput(output);
    await first.release();
    expect(existsSync(`${output}.lock`)).toBe(false);
    const again = await lock(output);
    expect(again.tookOverFrom).toBeUndefined();
  });

  it('says why when the directory does not exist', async () => {
    await expect(lockOutput(join(workdir(), 'missing', 'out.csv'))).rejects.toThrow(
      /^cannot write .*out\.csv: its directory does not exist$/,
    );
  });
});

describe('one writer per file, whatever its name', () => {
  const refusedAs = (name: string, holder: string) =>
    new RegExp(
      `${name}\\.csv is being written by propdata pid ${process.pid}, started \\d\\d:\\d\\d:\\d\\d \\(as .*${holder}\\.csv\\); wait for it or stop it$`,
    );

  it('refuses a hard link to an output being written, naming the holder and the name it writes, until it is released', async () => {
    const [a, b] = [workdir(), workdir()];
    const output = join(a, 'out.csv');
    writeFileSync(output, 'address\n');
    linkSync(output, join(b, 'linked.csv'));
    const first = await lock(output);
    const refusal = lockOutput(join(b, 'linked.csv'));
    await expect(refusal).rejects.toThrow(refusedAs('linked', 'out'));
    expect(exitCodeFor(await refusal.catch((error: unknown) => error))).toBe(1);
    // The refused run took nothing: not even the lock of its own name is left behind.
    expect(existsSync(join(b, 'linked.csv.lock'))).toBe(false);
    await first.release();
    await lock(join(b, 'linked.csv'));
    await expect(lockOutput(output)).rejects.toThrow(refusedAs('out', 'linked'));
  });

  it('meets a lock through `dir/../file`, also where dir is a symlink (the kernel goes up from its target)', async () => {
    const a = workdir();
    mkdirSync(join(a, 'deep', 'er'), { recursive: true });
    symlinkSync(join(a, 'deep', 'er'), join(a, 'shortcut'));
    // shortcut/../out.csv is deep/out.csv, not a/out.csv, as the writer will open it (join() would make it a/out.csv).
    await lock(`${a}/shortcut/../out.csv`);
    await expect(lockOutput(join(a, 'deep', 'out.csv'))).rejects.toThrow(/is being written by propdata pid/);
    await lock(join(a, 'out.csv'));
    writeFileSync(join(a, 'deep', 'out.csv'), 'address\n');
    await expect(lockOutput(`${a}/deep/er/../out.csv`)).rejects.toThrow(/is being written by propdata pid/);
  });

  it('refuses the same file seen through a bind mount (where this user may mount: CI runs as root)', async (context) => {
    const [a, b] = [workdir(), workdir()];
    writeFileSync(join(a, 'out.csv'), 'address\n');
    // The file itself mounted over another in another directory: no lock beside it is shared.
    writeFileSync(join(b, 'mounted.csv'), '');
    try {
      execFileSync('mount', ['--bind', join(a, 'out.csv'), join(b, 'mounted.csv')], { stdio: 'ignore' });
    } catch {
      context.skip('mounting needs root');
    }
    onTestFinished(() => {
      execFileSync('umount', [join(b, 'mounted.csv')]);
    });
    await lock(join(a, 'out.csv'));
    await expect(lockOutput(join(b, 'mounted.csv'))).rejects.toThrow(
      /mounted\.csv is being written by propdata pid \d+.*\(as .*out\.csv\)/,
    );
  });

  it('holds a file made after the lock, and a file renamed over the output, once told to', async () => {
    const a = workdir();
    const output = join(a, 'out.csv');
    const held = await lock(output);
    writeFileSync(output, 'address\n');
    await held.holdIdentity();
    linkSync(output, join(a, 'made.csv'));
    await expect(lockOutput(join(a, 'made.csv'))).rejects.toThrow(refusedAs('made', 'out'));
    // A merge writes a new file and renames it over the output: a new inode.
    writeFileSync(join(a, 'merged.tmp'), 'address\n1 Main St\n');
    renameSync(join(a, 'merged.tmp'), output);
    await held.holdIdentity();
    linkSync(output, join(a, 'after-merge.csv'));
    await expect(lockOutput(join(a, 'after-merge.csv'))).rejects.toThrow(refusedAs('after-merge', 'out'));
    await held.release();
    await lock(join(a, 'after-merge.csv'));
  });
});

describe('a lock held for a long run', () => {
  it('is kept alive by its refreshes, not lost to the owner file written into it', async () => {
    // proper-lockfile refreshes on its own timers and reads Date: faked here, so no second passes.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const dir = mkdtempSync(join(tmpdir(), 'propdata-lock-long-'));
    const output = join(dir, 'out.csv');
    let lost: unknown;
    const lock = await lockOutput(output, (error) => (lost = error), { refreshMs: 1_000 });
    // Two refreshes (proper-lockfile's shortest interval is 1 s): each checks that the lock
    // directory's mtime is still the one it set (writing the owner file changed it), then sets a
    // new one, on the disk: a refresh is seen done when the mtime has moved.
    for (let refresh = 1; refresh <= 2; refresh += 1) {
      const before = statSync(`${output}.lock`).mtimeMs;
      await vi.advanceTimersByTimeAsync(1_000);
      await vi.waitFor(() => expect(statSync(`${output}.lock`).mtimeMs).not.toBe(before));
    }
    expect(lost).toBeUndefined();
    await lock.release();
  });
});
