/**
 * Plays one stage to its end: looks at the stage afresh at every arrival and answer, and whenever something may
 * have changed on its own (a delivery's --wait running out, the --observe quiet reached), until settle.ts says it
 * is over or the run is interrupted. Measures how long cai's own event loop was held up meanwhile: a timing check
 * does not judge waits that cai itself may have drawn out, and the stage's waits run on by the time held (settle.ts).
 * The stages of a sender run (Stages) are played so, one listener and its recorder, a path of its own for each stage
 * (sender-stages.ts opens them; run-sender.ts plays the scenarios and explore/sender.ts its conversations on them).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { StageRecord } from '../evidence.js';
import type { Scenario } from './scenarios.js';
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

/** How one stage is played: its id (and path), its place in the run for a person sending by hand, when it must end. */
export interface StagePlay {
  id?: string;
  place?: { index: number; total: number };
  deadlineMono: number;
}

/** The listener of a run and the recorder behind it, on which every stage is played. */
export interface Stages {
  publicBase: string;
  play(entry: Scenario, options: StagePlay): Promise<StageRecord>;
  strays: readonly string[];
  strayCount(): number;
  /** Requests answered but not recorded by the listener's bounds (LISTENER_CAPS). */
  refused(): number;
  /** The stages played so far (to learn how many documents the sender sends in a run). */
  played: readonly StageRecord[];
  close(): Promise<void>;
}
