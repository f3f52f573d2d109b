import { afterEach, describe, expect, it } from 'vitest';
import { CallAbortedError, createClient, PropdataError, type RunEvent } from '../../src/library/index.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { envFor, WIDE_OPEN } from '../helpers/sandbox-per-test.js';
import { tempStorePath } from '../store/helpers/temp-store.js';

const VALMONTE = { address: '43 Valmonte Plaza', zipcode: '90274' };

/** A sandbox that holds each request until the test lets it through, and says when one is held. */
async function heldSandbox(): Promise<{ sandbox: RunningSandbox; held: Promise<void>; release: () => void }> {
  let onHeld!: () => void;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (onHeld = resolve));
  const gate = new Promise<void>((resolve) => (release = resolve));
  const sandbox = await startSandbox({
    rateLimits: WIDE_OPEN,
    latencyMs: [1, 1],
    sleep: () => {
      onHeld();
      return gate;
    },
  });
  return { sandbox, held, release };
}

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

describe("a one-item call's signal", () => {
  it('rejects the call at once with a CallAbortedError, and what the call bought still reaches the store', async () => {
    const { sandbox, held, release } = await heldSandbox();
    closing.push(() => sandbox.close());
    const store = tempStorePath();
    let ended!: () => void;
    const end = new Promise<void>((resolve) => (ended = resolve));
    const onEvent = (event: RunEvent) => event.type === 'end' && ended();
    const client = createClient({ env: envFor(sandbox), store, onEvent });
    closing.push(() => client.close());

    const stop = new AbortController();
    const call = client.property.value(VALMONTE, { signal: stop.signal }).catch((error: unknown) => error);
    await held;
    const aborted = performance.now();
    stop.abort(new Error('the user closed the page'));
    const error = await call;
    const waitedMs = performance.now() - aborted;
    expect(waitedMs).toBeLessThan(50);
    expect(error).toBeInstanceOf(CallAbortedError);
    expect(error).toBeInstanceOf(PropdataError);
    expect(error).toMatchObject({
      name: 'CallAbortedError',
      code: 'E_CALL_ABORTED',
      message: 'the call was aborted: the user closed the page',
    });
    expect((error as Error).cause).toEqual(new Error('the user closed the page'));

    // The answer arrives after the abort: it was paid for, and the store keeps it.
    release();
    await end;
    expect(sandbox.usage().components).toBe(1);
    const again = createClient({ env: envFor(sandbox), store, maxAge: 3_600_000 });
    closing.push(() => again.close());
    expect(await again.property.value(VALMONTE)).toHaveProperty('property/value.api_code', 0);
    expect(sandbox.usage().components).toBe(1);
  });

  it('rejects at once when the signal was aborted before the call, sending nothing', async () => {
    const { sandbox } = await heldSandbox();
    closing.push(() => sandbox.close());
    const client = createClient({ env: envFor(sandbox), store: false, signal: AbortSignal.abort() });
    closing.push(() => client.close());
    await expect(client.property.value(VALMONTE)).rejects.toThrow(CallAbortedError);
    expect(sandbox.usage().requests).toBe(0);
  });
});
