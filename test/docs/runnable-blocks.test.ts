import { cpSync, mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { BIN, runShell } from '../helpers/cli-process.js';
import { docPages, readDoc, ROOT } from '../helpers/docs.js';
import { envFor, WIDE_OPEN } from '../helpers/sandbox-per-test.js';

/**
 * Every command the documentation marks as runnable runs as written (docs/how-it-is-built.md, "The
 * documentation and its tests"): a ```sh block after `<!-- runs -->` (or `<!-- runs: exit N -->`)
 * is run by `sh -e` in a folder of the page's own holding a copy of samples/, with propdata on the
 * PATH (and for npx), a home and a config of the folder's, and a sandbox's credentials in the
 * environment. Every other sh block says why it does not run here.
 */
interface ShBlock {
  page: string;
  /** Its line in the page, 1-based: where a failure points. */
  line: number;
  script: string;
  /** What its marker says: the exit code it ends with, or why it is not run. */
  marker: { exit: number } | { notRun: string } | undefined;
}

/** The marker on the line before a block, read. */
function markerOf(line: string | undefined): ShBlock['marker'] {
  const runs = /^<!-- runs(?:: exit (\d+))? -->$/.exec(line ?? '');
  if (runs) return { exit: Number(runs[1] ?? 0) };
  const notRun = /^<!-- not run here: (.+) -->$/.exec(line ?? '');
  return notRun ? { notRun: notRun[1]! } : undefined;
}

/** A page's ```sh blocks, each with the marker on the line before it. */
function shBlocks(page: string): ShBlock[] {
  const lines = readDoc(page).split('\n');
  const blocks: ShBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```sh') continue;
    const end = lines.indexOf('```', i + 1);
    blocks.push({ page, line: i + 1, script: lines.slice(i + 1, end).join('\n'), marker: markerOf(lines[i - 1]) });
    i = end;
  }
  return blocks;
}

/** A reader's folder: the samples copied, propdata on the PATH and for `npx propdata`, its own home and config. */
function readersFolder(): { cwd: string; env: Record<string, string> } {
  const cwd = mkdtempSync(join(tmpdir(), 'propdata-docs-'));
  cpSync(join(ROOT, 'samples'), join(cwd, 'samples'), { recursive: true });
  const bin = join(cwd, 'node_modules', '.bin');
  mkdirSync(bin, { recursive: true });
  symlinkSync(BIN, join(bin, 'propdata'));
  return {
    cwd,
    env: {
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      PROPDATA_HOME: join(cwd, '.propdata-home'),
      PROPDATA_CONFIG_DIR: join(cwd, '.propdata-config'),
    },
  };
}

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ rateLimits: WIDE_OPEN, credit: 1_000_000, strict: true });
});
afterAll(async () => {
  await sandbox.close();
});

const PAGES = docPages().map((page) => ({ page, blocks: shBlocks(page) }));

describe("the documentation's shell blocks", () => {
  it('each says whether it runs (<!-- runs -->) or why it does not (<!-- not run here: ... -->)', () => {
    const unmarked = PAGES.flatMap(({ blocks }) => blocks.filter((block) => block.marker === undefined));
    expect(unmarked.map(({ page, line }) => `${page}:${line}`)).toEqual([]);
  });

  for (const { page, blocks } of PAGES) {
    const runnable = blocks.filter((block) => block.marker !== undefined && 'exit' in block.marker);
    if (runnable.length === 0) continue;
    // Pages run side by side, each in its own folder: a page's blocks in order, as its reader runs them.
    it.concurrent(`${page}: its runnable blocks (${runnable.length}) run as written, in order`, { timeout: 120_000 }, async () => {
      const folder = readersFolder();
      for (const block of runnable) {
        const ran = await runShell(block.script, { cwd: folder.cwd, env: { ...envFor(sandbox), ...folder.env }, shellFlags: ['-e'] });
        expect(ran.code, `${page}:${block.line}\n${block.script}\n${ran.stderr}`).toBe((block.marker as { exit: number }).exit);
      }
    });
  }
});
