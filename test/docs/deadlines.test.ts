/**
 * The table of deadlines in docs/limits.md (DEADLINES of src/bounds.ts, plain data) states the defaults of the code
 * that waits: each number is compared here with the constant or the flag's default it stands for, so that the page
 * cannot say 10 s where a command waits 30.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEADLINES } from '../../src/bounds.js';
import {
  DEDUPE_MEMORY_WAIT_MS,
  DEFAULT_CALLBACK_WAIT_MS,
  DEFAULT_MANUAL_WAIT_MS,
  DEFAULT_MAX_RETRY_AFTER_MS,
  DEFAULT_OBSERVE_MS,
  DEFAULT_WAIT_MS,
  EXPECT_CONTINUE_WAIT_MS,
  MOCK_DEDUPE_MEMORY_WAIT_MS,
  RATE_LIMITED_BUDGET_MS,
  TRIGGER_EXIT_GRACE_MS,
} from '../../src/conformance/tolerances.js';
import { DEFAULT_ATTEMPT_TIMEOUT_MS, DEFAULT_RETRY_POLICY } from '../../src/http/retry.js';
import { RUN_RATE_LIMITED_BUDGET_MS } from '../../src/conformance/probe/session.js';
import { LOAD_BOUNDS } from '../../src/load/bounds.js';
import { GIVE_UP_AFTER_MS } from '../../src/main.js';
import { FIRST_CONTACT_TARGET_SECONDS } from '../../src/spec/constants.js';
import { ROOT, runCli } from '../helpers/cli.js';

/** A flag's default as `--help` states it, in ms: `(default: 10s)`. */
async function helpDefault(command: string[], flag: string): Promise<number> {
  const help = (await runCli([...command, '--help'])).stdout.replace(/\s+/g, ' ');
  const match = new RegExp(`${flag} <[^>]+> .*?\\(default: ([0-9]+)(ms|s)\\)`).exec(help);
  if (!match) throw new Error(`no default for ${flag} in cai ${command.join(' ')} --help`);
  return Number(match[1]) * (match[2] === 's' ? 1000 : 1);
}

describe('the deadlines docs/limits.md states', () => {
  it('are the defaults of the code that waits', async () => {
    expect(DEADLINES.sendAttempt.ms).toBe(DEFAULT_ATTEMPT_TIMEOUT_MS);
    expect(DEADLINES.sendAttempt.ms).toBe(await helpDefault(['send-event'], '--timeout'));
    expect(DEADLINES.sendDelivery.ms).toBe(DEFAULT_RETRY_POLICY.retryForMs);
    expect(DEADLINES.conformanceRequest.ms).toBe(await helpDefault(['conformance', 'run'], '--timeout'));
    expect(DEADLINES.conformanceRateLimited.ms).toBe(RATE_LIMITED_BUDGET_MS);
    expect(DEADLINES.conformanceRateLimited.waitsOn).toContain(`each at most ${DEFAULT_MAX_RETRY_AFTER_MS / 1000} s`);
    expect(DEADLINES.conformanceRateLimitedRun.ms).toBe(RUN_RATE_LIMITED_BUDGET_MS);
    expect(DEADLINES.conformanceCallbacks.ms).toBe(DEFAULT_CALLBACK_WAIT_MS);
    expect(DEADLINES.conformanceCallbacks.ms).toBe(await helpDefault(['conformance', 'run'], '--callback-wait'));
    expect(DEADLINES.conformanceObserve.ms).toBe(DEFAULT_OBSERVE_MS);
    expect(DEADLINES.conformancePause.ms).toBe(DEDUPE_MEMORY_WAIT_MS);
    expect(DEADLINES.conformancePause.waitsOn).toContain(`${MOCK_DEDUPE_MEMORY_WAIT_MS / 1000} s against`);
    expect(DEADLINES.conformanceContinue.ms).toBe(EXPECT_CONTINUE_WAIT_MS);
    expect(DEADLINES.senderScenario.ms).toBe(DEFAULT_WAIT_MS);
    expect(DEADLINES.senderScenario.waitsOn).toContain(`${DEFAULT_MANUAL_WAIT_MS / 60_000} min when sent by hand`);
    expect(DEADLINES.senderTrigger.ms).toBe(TRIGGER_EXIT_GRACE_MS);
    expect(DEADLINES.loadRequest.ms).toBe(await helpDefault(['load'], '--timeout'));
    expect(DEADLINES.loadRun.ms).toBe(LOAD_BOUNDS.runGraceMs);
    expect(DEADLINES.loadCallbacks.ms).toBe(FIRST_CONTACT_TARGET_SECONDS * 1000);
    expect(DEADLINES.doctor.ms).toBe(await helpDefault(['doctor'], '--timeout'));
    expect(DEADLINES.mockCallbackAttempt.ms).toBe(DEFAULT_ATTEMPT_TIMEOUT_MS);
    expect(DEADLINES.mockCallbackDelivery.ms).toBe(DEFAULT_RETRY_POLICY.retryForMs);
    expect(DEADLINES.interruptGiveUp.ms).toBe(GIVE_UP_AFTER_MS);
    // Not exported (main.ts alone uses it): read from its source.
    const main = readFileSync(join(ROOT, 'src/main.ts'), 'utf8');
    expect(main).toMatch(
      new RegExp(`const ABORT_AFTER_MS = ${DEADLINES.interruptAbort.ms.toLocaleString('en').replace(',', '_')};`),
    );
  });
});
