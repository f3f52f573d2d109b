import { PropdataError } from '../errors/index.js';

/** The signals that ask propdata to stop cleanly; bin/propdata.js wires each to io.signal. */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type StopSignalName = (typeof STOP_SIGNALS)[number];

/**
 * The reason io.signal carries when a signal stopped the run, so that the batch can say which
 * ("stopped by SIGTERM") and exit as docs/nightly.md says. It is a PropdataError so that, if it is
 * ever thrown (AbortSignal.throwIfAborted), main() still prints one line and exits 130 (exit-codes.ts).
 *
 * Every stop signal exits 130, not 128 + its number (143 for SIGTERM, 129 for SIGHUP): the run
 * was not killed, it stopped cleanly with a resumable output, and scripts (docs/nightly.md, "What
 * the exit says") read 130 as a stop to run again, whoever sent the signal.
 */
export class SignalStop extends PropdataError {
  readonly signal: StopSignalName;

  constructor(signal: StopSignalName) {
    super('E_INTERRUPTED', `stopped by ${signal === 'SIGINT' ? 'Ctrl-C (SIGINT)' : signal}`);
    this.signal = signal;
  }
}
