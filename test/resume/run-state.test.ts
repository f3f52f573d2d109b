import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../src/cli/exit-codes.js';
import { readRunState, recordProgress, statePathFor, type RunState } from '../../src/resume/run-state.js';
import { tempDir } from './records.js';

const STATE: RunState = {
  version: 2,
  settings: 'abc',
  input: { path: '/data/in.csv', size: 10, sample: 'def' },
  records: 0,
  complete: false,
};

describe('run state', () => {
  it('is absent when there is no file, and keeps the records and completeness recordProgress stores', async () => {
    const output = join(tempDir(), 'out.csv');
    expect(await readRunState(output)).toBeUndefined();
    await recordProgress(output, STATE, 57, false);
    expect(await readRunState(output)).toEqual({ ...STATE, records: 57, complete: false });
    await recordProgress(output, STATE, 400, true);
    expect(await readRunState(output)).toEqual({ ...STATE, records: 400, complete: true });
  });

  it.each([
    [
      'another version',
      '{"version":1}',
      /out\.csv\.propdata-run\.json was written by another version of propdata \(run state version 1; this one reads 2\)/,
    ],
    ['text that is not JSON', '{"version":2,', /out\.csv\.propdata-run\.json is not a propdata run state, or is damaged/],
    ['a member missing', JSON.stringify({ ...STATE, records: undefined }), /is not a propdata run state/],
    ['a member of another type', JSON.stringify({ ...STATE, input: { ...STATE.input, size: '10' } }), /is not a propdata run state/],
    ['null', 'null', /is not a propdata run state/],
  ])('refuses a state file holding %s with a one-line usage error', async (_, text, message) => {
    const output = join(tempDir(), 'out.csv');
    writeFileSync(statePathFor(output), text);
    const refusal = readRunState(output);
    await expect(refusal).rejects.toThrow(message);
    expect(exitCodeFor(await refusal.catch((error: unknown) => error))).toBe(2);
    await expect(refusal).rejects.toMatchObject({
      message: expect.stringMatching(/^cannot resume .*out\.csv: .*; run without --resume to start over$/),
    });
  });
});
