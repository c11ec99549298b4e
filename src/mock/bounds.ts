import { usageError } from '../errors.js';
import { BodyWatch } from '../http/body-watch.js';
import { ByteBudget, DEFAULT_RECEIVER_LIMITS, type ReceiverLimits } from '../http/server.js';

export type { ReceiverLimits } from '../http/server.js';

/** The bounds a receiver runs within: its limits (the defaults, overridden) and the shared budget of body bytes. */
export interface Bounds {
  limits: ReceiverLimits;
  budget: ByteBudget;
  /** The body time-outs, one timer for every body being read (stopped when the receiver closes). */
  watch: BodyWatch;
  /** Events each dedupe index remembers at most (see DedupeIndex); unbounded when not given. */
  dedupeCapacity?: number;
}

/** Checks a caller's overrides (usage errors: the CLI does not set these) and builds the bounds. */
export function resolveBounds(options: { limits?: Partial<ReceiverLimits>; dedupeCapacity?: number }): Bounds {
  // An override left undefined keeps the default.
  const overrides = Object.entries(options.limits ?? {}).filter(([, value]) => value !== undefined);
  const limits: ReceiverLimits = { ...DEFAULT_RECEIVER_LIMITS, ...Object.fromEntries(overrides) };
  for (const [name, value] of Object.entries(limits)) {
    if (!(Number.isFinite(value) && value > 0))
      throw usageError(
        'bad_limit',
        `limits.${name} must be a positive number, not ${String(value)}`,
        'leave it out for the default',
      );
  }
  const capacity = options.dedupeCapacity;
  if (capacity !== undefined && !(Number.isSafeInteger(capacity) && capacity > 0)) {
    throw usageError(
      'bad_dedupe_capacity',
      `dedupeCapacity must be a whole number above 0, not ${String(capacity)}`,
      'leave it out to remember every event',
    );
  }
  return {
    limits,
    budget: new ByteBudget(limits.maxBufferedBytes),
    watch: new BodyWatch(limits.bodyIdleTimeoutMs, limits.bodyTimeoutMs),
    dedupeCapacity: capacity,
  };
}
