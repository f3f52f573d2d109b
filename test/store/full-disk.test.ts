import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';
import { sandboxPerTest } from '../helpers/sandbox-per-test.js';

/**
 * A full disk, anywhere, is a stop like any other: every answer that could be kept or written is,
 * the summary and the resume command are printed, and the rerun takes from the store what was
 * bought. The disk is a real one: a small tmpfs, filled with a file before the run and emptied
 * after it. Mounting needs root (CI runs as root); elsewhere these tests say why they are skipped.
 */
const sandbox = sandboxPerTest();

function canMount(): boolean {
  const probe = mkdtempSync(join(tmpdir(), 'propdata-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

const MOUNTING = canMount();
const mounted: string[] = [];
afterEach(() => {
  for (const dir of mounted.splice(0)) execFileSync('umount', [dir], { stdio: 'ignore' });
});

/** A small disk of its own, with `free` bytes left after a filler file (removed by `free()`). */
function smallDisk(sizeKb: number, freeKb: number) {
  const dir = mkdtempSync(join(tmpdir(), 'propdata-small-disk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeKb}k`, 'tmpfs', dir]);
  mounted.push(dir);
  const filler = join(dir, 'filler');
  writeFileSync(filler, Buffer.alloc((sizeKb - freeKb) * 1024));
  return { dir, free: () => rmSync(filler) };
}

function rows(count: number) {
  const dir = mkdtempSync(join(tmpdir(), 'propdata-full-'));
  const input = join(dir, 'homes.csv');
  const lines = Array.from({ length: count }, (_, i) => `${i + 1} Full Disk Rd,21${String(i % 90).padStart(3, '0')}`);
  writeFileSync(input, `address,zipcode\n${lines.join('\n')}\n`);
  return { dir, input };
}

describe.skipIf(!MOUNTING)('a full disk (needs root to mount a small tmpfs)', () => {
  it('under the store: the run stops as at any stop, every answer written, and the rerun buys nothing twice', async () => {
    const env = await sandbox.start();
    const { dir, input } = rows(1_500);
    const disk = smallDisk(16_384, 1_024);
    const store = join(disk.dir, 'propdata.db');
    const output = join(dir, 'values.csv');
    const command = ['property', 'value', '-i', input, '-o', output, '--store', store, '--batch-size', '50'];
    const stopped = await runMain(command, { env });
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toMatch(/propdata: stopped: .*values\.csv holds/);
    expect(stopped.stderr).toMatch(/stopped: cannot use the store .*: the disk is full/);
    expect(stopped.stderr).toMatch(/continue with:\n.*--resume/);
    const paid = sandbox.current.usage();
    expect(paid.components).toBeLessThan(1_500);

    disk.free();
    const resumed = await runMain([...command, '--resume', '-q'], { env });
    expect(resumed.code).toBe(0);
    expect(readFileSync(output, 'utf8').trimEnd().split('\n')).toHaveLength(1_501);
    expect(sandbox.current.usage().chargedAgain).toEqual({ sections: 0, usd: 0 });
  });

  it('under the output: the run stops, says so with the summary and the resume command, and the rerun takes what was bought from the store', async () => {
    const env = await sandbox.start();
    const { dir, input } = rows(1_500);
    const disk = smallDisk(2_048, 256);
    mkdirSync(join(disk.dir, 'out'));
    const output = join(disk.dir, 'out', 'values.csv');
    const command = ['property', 'value', '-i', input, '-o', output, '--store', join(dir, 'propdata.db'), '--batch-size', '50'];
    const stopped = await runMain(command, { env });
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toMatch(/propdata: stopped: /);
    expect(stopped.stderr).toMatch(/disk is full|ENOSPC|no space/i);
    expect(stopped.stderr).toMatch(/continue with:\n.*--resume/);
    // The summary counts what is in the file, not what was handed to it: whole records (a torn last line is cut by the rerun).
    const held = /values\.csv holds (.+)\n/.exec(stopped.stderr)?.[1] ?? '';
    const counted = [...held.matchAll(/(\d[\d,]*) \w+/g)].reduce((sum, [, n]) => sum + Number(n!.replace(/,/g, '')), 0);
    const whole = readFileSync(output, 'utf8').split('\n').length - 2;
    expect(counted).toBe(whole);
    expect(whole).toBeGreaterThan(0);
    expect(stopped.stderr).toContain(`rows from ${whole + 1} on are not in the output yet`);

    disk.free();
    const resumed = await runMain([...command, '--resume', '-q'], { env });
    expect(resumed.code).toBe(0);
    expect(readFileSync(output, 'utf8').trimEnd().split('\n')).toHaveLength(1_501);
    expect(sandbox.current.usage().chargedAgain).toEqual({ sections: 0, usd: 0 });
  });
});
