/**
 * What a run with generated documents was asked for, kept beside its session: how many documents, the seed that
 * draws them, and the bounds. Plain data, no fast-check: the catalogue's checks read it, and the generator itself
 * is loaded only when one of them runs.
 */
import { randomInt } from 'node:crypto';
import { GENERATE_CAPS } from '../../bounds.js';
import type { Session } from '../probe/session.js';

export interface GenerateRequest {
  /** N: valid documents, and as many invalid ones (1 to GENERATE_CAPS.documents). */
  count: number;
  /** Draws the documents: the same seed, the same documents (each sent with a fresh event_id). */
  seed: number;
}

export interface GenerationSetup extends GenerateRequest {
  /** Requests in flight at once (the run's --concurrency). */
  concurrency: number;
  timeLimitMs: number;
  shrinkTimeMs: number;
  shrinkRequests: number;
  /** The generated checks of the plan: documents only they judge are drawn and sent. */
  checks: ReadonlySet<string>;
}

/** Seeds are drawn from the 31 bits fast-check takes whole. */
export const MAX_SEED = 2 ** 31 - 1;

export function randomSeed(): number {
  return randomInt(MAX_SEED);
}

const SETUPS = new WeakMap<Session, GenerationSetup>();

/** The setup of a run, given the count and seed asked for (defaults: GENERATE_CAPS.defaultDocuments, a random seed). */
export function generationSetup(request: Partial<GenerateRequest>, concurrency: number, checks: ReadonlySet<string>): GenerationSetup {
  return {
    count: request.count ?? GENERATE_CAPS.defaultDocuments,
    seed: request.seed ?? randomSeed(),
    concurrency,
    timeLimitMs: GENERATE_CAPS.timeLimitMs,
    shrinkTimeMs: GENERATE_CAPS.shrinkTimeMs,
    shrinkRequests: GENERATE_CAPS.shrinkRequests,
    checks,
  };
}

export function setGeneration(session: Session, setup: GenerationSetup): void {
  SETUPS.set(session, setup);
}

export function generationOf(session: Session): GenerationSetup | undefined {
  return SETUPS.get(session);
}

/** The flags that draw the same documents again: ` --generate N --seed S`, those not on `given` already. */
export function generateFlags(setup: GenerateRequest, given: { count?: boolean; seed?: boolean } = {}): string {
  return `${given.count ? '' : ` --generate ${setup.count}`}${given.seed ? '' : ` --seed ${setup.seed}`}`;
}

/** The ids of the generated checks: `B-GEN-001` … */
export function isGeneratedCheck(id: string): boolean {
  return /^[AB]-GEN-\d{3}$/.test(id);
}
