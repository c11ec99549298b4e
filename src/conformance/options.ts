/**
 * What a run is given, for either role: a receiver run (run-receiver.ts) the target or the in-process mock, the
 * identity and secrets, the callback listener (Interface A), the bounds and the hooks; a sender run (run-sender.ts)
 * the listener, the trigger, the waits and the hooks that tell the caller how it goes; both, the selection, the
 * waivers and the reproductions. Its own module, so that the pieces of a run (receiver-setup.ts, sender-stages.ts)
 * take it from below.
 */
import type { ClientOptions } from '../http/client.js';
import type { TlsFiles } from '../http/server.js';
import type { InterfaceId } from '../spec/constants.js';
import type { Selection } from './catalogue.js';
import type { SenderEvidence } from './evidence.js';
import type { ExploreRequest } from './explore/setup.js';
import type { Scenario, SenderScenarioId } from './listen/scenarios.js';
import type { ReproducerFactory, RunHooks } from './runner.js';
import type { ScenarioSummary } from './types.js';
import type { Waiver } from './waivers.js';

/** What runs of both roles are given alike. */
interface RunOptions {
  interface: InterfaceId;
  selection: Selection;
  /** Label of the first secret's source, for the reproduction commands (never the value). */
  secretLabel?: string;
  /** After the last event of a job (A) or the last attempt of a scenario, how long cai listens for one more. */
  observeMs?: number;
  /** Checks at once (a receiver's), scenarios at once with a trigger (a sender's; by hand: one at a time). Default 8. */
  concurrency?: number;
  waivers?: readonly Waiver[];
  /** Where the failures' evidence is saved; default a new directory under the system temp dir. */
  reproDir?: string;
  /**
   * Writes a reproduction of each failing check (its evidence saved, a command or script that shows the failure
   * again). The CLI's, or `receiverReproducer(options)` / `senderReproducer(options)`; without one, none is written.
   */
  reproducer?: ReproducerFactory;
  /** Stops the run (Ctrl-C): checks not started are skipped, a sender's scenarios not run leave theirs not judged. */
  signal?: AbortSignal;
}

export interface ConformanceOptions extends RunHooks, RunOptions {
  /** The events URL (B) or provider endpoint (A); ignored with `mock`. */
  target?: string;
  /** Start the reference receiver in-process and run against it. */
  mock?: boolean;
  /** With `mock`: deliberate defects of the reference receiver (the suite's self-test; `--break`). */
  faults?: readonly string[];
  /** B: the provider code; A: the platform id (X-CAI-Source). Defaults with `mock`. */
  identity?: string;
  /** Signing secrets (first signs). Generated with `mock` when absent. */
  secrets?: readonly string[];
  /** A: the events-direction secrets; enables the callback checks. Generated with `mock`. */
  callbackSecrets?: readonly string[];
  /** Label of the first callback secret's source, for reproduction commands. */
  callbackSecretLabel?: string;
  /** A: the provider code expected on callbacks. */
  providerCode?: string;
  branchCode?: string;
  leadId?: string;
  callbackListen?: { host: string; port: number };
  callbackUrl?: string;
  callbackWaitMs?: number;
  timeoutMs?: number;
  client?: Pick<ClientOptions, 'ca' | 'insecure' | 'proxy'>;
  sourceAddress?: string;
  /** Largest Retry-After honoured (ms). */
  maxRetryAfterMs?: number;
  /** Start no new check once this many must checks have failed (`--fail-fast`: 1); the rest are skipped. */
  maxFailures?: number;
  /**
   * The stateful phase (src/conformance/explore), on by default: its seed, budget, or one conversation to replay;
   * `false` turns it off (its checks are then skipped).
   */
  explore?: ExploreRequest | false;
}

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
    RunOptions,
    Pick<SenderEvidence, 'interface' | 'identity' | 'secrets'> {
  /** `sh -c` once per scenario, with CAI_TARGET_URL and CAI_SCENARIO; without it, a person sends by hand. */
  trigger?: string;
  listen?: { host: string; port: number };
  /** The origin the sender reaches the listener at (a tunnel), when not the listener's own. */
  publicUrl?: string;
  tls?: TlsFiles;
  /** How long one delivery may take to settle, from its first attempt (default 60 s with a trigger, 5 min by hand). */
  waitMs?: number;
  /** The trigger's environment (CAI_TARGET_URL and CAI_SCENARIO are added) and working directory. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** The stateful phase (src/conformance/explore/sender.ts), on by default: its seed, budget, or one conversation to replay. */
  explore?: (ExploreRequest & { seed: number }) | false;
}
