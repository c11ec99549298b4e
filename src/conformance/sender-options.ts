/**
 * What a sender run (run-sender.ts) is given: the listener, the trigger, the waits, the selection, and the hooks that
 * tell the caller how it goes. Its own module, so that the pieces of the run (sender-stages.ts) take it from below.
 */
import type { TlsFiles } from '../http/server.js';
import type { Selection } from './catalogue.js';
import type { ExploreRequest } from './explore/setup.js';
import type { Scenario, SenderScenarioId } from './listen/scenarios.js';
import type { SenderEvidence } from './evidence.js';
import type { ReproducerFactory } from './runner.js';
import type { ScenarioSummary } from './types.js';
import type { Waiver } from './waivers.js';

export interface ScenarioStart extends Pick<ScenarioSummary, 'targetUrl' | 'script'>, Pick<Scenario, 'purpose'> {
  id: SenderScenarioId;
  /** 1-based position, and how many scenarios run. */
  index: number;
  total: number;
  /** No trigger: a person sends (the instructions are for them). */
  byHand: boolean;
  waitMs: number;
}

export interface SenderRunHooks {
  /** The listener is up (before the first scenario). */
  onListening?(url: string): void;
  onScenarioStart?(start: ScenarioStart): void;
  onScenarioEnd?(summary: ScenarioSummary): void;
}

export interface SenderConformanceOptions
  extends SenderRunHooks,
    Pick<SenderEvidence, 'interface' | 'identity' | 'secrets'> {
  /** Label of the first secret's source, for the reproduction commands (never the value). */
  secretLabel?: string;
  /** `sh -c` once per scenario, with CAI_TARGET_URL and CAI_SCENARIO; without it, a person sends by hand. */
  trigger?: string;
  listen?: { host: string; port: number };
  /** The origin the sender reaches the listener at (a tunnel), when not the listener's own. */
  publicUrl?: string;
  tls?: TlsFiles;
  /** How long one delivery may take to settle, from its first attempt (default 60 s with a trigger, 5 min by hand). */
  waitMs?: number;
  /** After the last attempt of a scenario, how long cai listens for one more (default 2 s). */
  observeMs?: number;
  selection: Selection;
  /** Scenarios at once with a trigger (default 8; by hand: one at a time). */
  concurrency?: number;
  waivers?: readonly Waiver[];
  /** Where what the sender sent is saved for the failures; default a new directory under the temp dir. */
  reproDir?: string;
  /**
   * Writes a reproduction of each failing check (what the sender sent, saved; a command that judges it again). The
   * CLI's, or `senderReproducer(options)` for these options; without one, none is written.
   */
  reproducer?: ReproducerFactory;
  /** The trigger's environment (CAI_TARGET_URL and CAI_SCENARIO are added) and working directory. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Stops the run (Ctrl-C): the scenario under way ends, the rest do not run; their checks are not judged. */
  signal?: AbortSignal;
  /** The stateful phase (src/conformance/explore/sender.ts), on by default: its seed, budget, or one conversation to replay. */
  explore?: (ExploreRequest & { seed: number }) | false;
}
