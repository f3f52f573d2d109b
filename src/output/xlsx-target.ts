import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { Writable } from 'node:stream';
import { OutputError, UsageError } from '../errors/index.js';
import { cannotWrite } from './sink.js';

/** Where a workbook's bytes go, and how that fails. */
export interface XlsxTarget {
  /** Ended by the zip once the workbook is complete. */
  stream: Writable;
  /** Rejects with the OutputError as soon as writing fails; never resolves. */
  readonly failed: Promise<never>;
  /** The error that failed the target, for a synchronous check. */
  failure(): OutputError | undefined;
  fail: (error: unknown) => void;
  /** Resolves once every byte has left: the file closed, or stdout handed all of it. Race it with `failed`. */
  finished(): Promise<void>;
}

function target(where: string): Omit<XlsxTarget, 'stream' | 'finished'> {
  let failure: OutputError | undefined;
  let reject!: (error: OutputError) => void;
  const failed = new Promise<never>((_, rejectWith) => (reject = rejectWith));
  // Nobody has to listen: a run that never asks must not die of an unhandled rejection.
  failed.catch(() => undefined);
  return {
    failed,
    failure: () => failure,
    fail: (error) => {
      failure ??= error instanceof OutputError ? error : cannotWrite(error, where);
      reject(failure);
    },
  };
}

/**
 * A file, or stdout when path is absent or `-`. Stdout is written but never ended (it is not ours),
 * and refused on a terminal: a workbook is binary.
 */
export async function openXlsxTarget(path: string | undefined, stdout: Writable): Promise<XlsxTarget> {
  if (path === undefined || path === '-') {
    if ((stdout as { isTTY?: boolean }).isTTY) {
      throw new UsageError(
        'an xlsx workbook is binary: give --output FILE.xlsx rather than write it to the terminal',
        'E_USAGE_XLSX_TERMINAL',
      );
    }
    const base = target('to stdout');
    stdout.on('error', base.fail);
    const forward = new Writable({
      write(chunk, _encoding, callback) {
        if (stdout.write(chunk)) callback();
        else once(stdout, 'drain').then(() => callback(), callback);
      },
    });
    const finished = new Promise<void>((resolve) => forward.once('finish', resolve));
    return { ...base, stream: forward, finished: () => finished };
  }
  const file = createWriteStream(path);
  try {
    await once(file, 'open');
  } catch (error) {
    throw cannotWrite(error, path);
  }
  const base = target(path);
  file.on('error', base.fail);
  const closed = new Promise<void>((resolve) => file.once('close', resolve));
  return { ...base, stream: file, finished: () => closed };
}
