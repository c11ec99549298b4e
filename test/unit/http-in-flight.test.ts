/** The requests a receiver is still answering (src/http/in-flight.ts): its close waits for every one, failed or not. */
import { describe, expect, it } from 'vitest';
import { InFlight } from '../../src/http/in-flight.js';

function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

describe('requests in flight', () => {
  it('drained() resolves at once when nothing is in flight', async () => {
    await new InFlight().drained();
  });

  it('drained() waits for every request, a rejected one included, and for one tracked while it waits', async () => {
    const inFlight = new InFlight();
    const first = deferred();
    const second = deferred();
    const third = deferred();
    inFlight.track(first.promise);
    inFlight.track(second.promise.catch(() => undefined).then(() => Promise.reject(new Error('handler failed'))));
    let drained = false;
    const done = inFlight.drained().then(() => {
      drained = true;
    });
    first.resolve();
    inFlight.track(third.promise);
    second.resolve();
    // Every settled promise's callbacks have run: the third still holds the drain.
    await new Promise((resolve) => setImmediate(resolve));
    expect(drained).toBe(false);
    third.resolve();
    await done;
    expect(drained).toBe(true);
  });
});
