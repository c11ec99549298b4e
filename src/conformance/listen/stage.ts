/**
 * Plays one stage to its end: looks at the stage afresh at every arrival and answer, and whenever something may
 * have changed on its own (a delivery's --wait running out, the --observe quiet reached), until settle.ts says it
 * is over or the run is interrupted. Measures how long cai's own event loop was held up meanwhile: a timing check
 * does not judge waits that cai itself may have drawn out, and the stage's waits run on by the time held (settle.ts).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { StageRecord } from '../evidence.js';
import type { Recorder } from './recorder.js';
import { heldAt } from '../../http/loop-clock.js';
import { stageState, type SettleOptions } from './settle.js';

/** The resolution of the event-loop delay sampling (ms); the delay it reports includes it. */
const LAG_RESOLUTION_MS = 10;

/** settle.ts's options, those that change as the stage goes read afresh at each look. */
export interface StageOptions extends Pick<SettleOptions, 'waitMs' | 'deadlineMono' | 'deadlineIsWait'> {
  /** The quiet that ends a stage; a function where it grows with what the stage saw. */
  observeMs: number | (() => number);
  signal: AbortSignal;
  senderDone(): boolean;
  failedEarly?(): boolean;
  awaiting?(): boolean;
}

export async function playStage(recorder: Recorder, record: StageRecord, options: StageOptions): Promise<void> {
  const lag = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  lag.enable();
  // The listener that feeds the recorder keeps the loop clock beating (listener.ts).
  const heldBefore = heldAt(performance.now());
  try {
    while (!options.signal.aborted) {
      const now = performance.now();
      const state = stageState(record, now, {
        waitMs: options.waitMs,
        observeMs: typeof options.observeMs === 'number' ? options.observeMs : options.observeMs(),
        senderDone: options.senderDone(),
        failedEarly: options.failedEarly?.() ?? false,
        ...(options.awaiting ? { awaiting: options.awaiting() } : {}),
        ...(options.deadlineMono !== undefined ? { deadlineMono: options.deadlineMono } : {}),
        ...(options.deadlineIsWait ? { deadlineIsWait: true } : {}),
        heldMs: heldAt(now) - heldBefore,
      });
      if (state.done) break;
      await recorder.nextChange(state.nextMono, options.signal);
    }
  } finally {
    lag.disable();
    record.maxLagMs = Math.max(0, Math.round(lag.max / 1e6 - LAG_RESOLUTION_MS));
    record.heldMs = Math.round(heldAt(performance.now()) - heldBefore);
    recorder.close(record, performance.now());
    if (options.signal.aborted) record.interrupted = true;
  }
}
