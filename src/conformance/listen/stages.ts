/**
 * The stages of a sender run as the scenarios and the stateful phase play them: one listener and its recorder, a
 * path of its own for each stage (run-sender.ts opens them; explore/sender.ts plays its conversations on them).
 */
import type { StageRecord } from '../evidence.js';
import type { Scenario } from './scenarios.js';

/** How one stage is played: its id (and path), its place in the run for a person sending by hand, when it must end. */
export interface StageOptions {
  id?: string;
  place?: { index: number; total: number };
  deadlineMono: number;
}

/** The listener of a run and the recorder behind it, on which every stage is played. */
export interface Stages {
  publicBase: string;
  play(entry: Scenario, options: StageOptions): Promise<StageRecord>;
  strays: readonly string[];
  strayCount(): number;
  /** Requests answered but not recorded by the listener's bounds (LISTENER_CAPS). */
  refused(): number;
  /** The stages played so far (to learn how many documents the sender sends in a run). */
  played: readonly StageRecord[];
  close(): Promise<void>;
}
