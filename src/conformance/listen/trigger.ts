/**
 * The trigger of a scenario: `sh -c CMD` with CAI_TARGET_URL and CAI_SCENARIO in its environment. It makes the
 * sender under test deliver one document and may exit before the sender's retries are done. It runs in its own
 * process group, so that at the end of its scenario cai can stop it and whatever it started (a sender still
 * retrying), and so that a Ctrl-C meant for cai reaches it only through cai.
 */
import { spawn } from 'node:child_process';
import { errorMessage } from '../../errors.js';
import type { TriggerOutcome } from '../evidence.js';
import { TRIGGER_OUTPUT_BYTES } from '../tolerances.js';

export interface RunningTrigger {
  /** Resolves when the trigger has exited, or could not be started. */
  readonly exited: Promise<TriggerOutcome>;
  /**
   * Waits up to `exitGraceMs` for it to exit by itself, then stops its process group: SIGTERM, and SIGKILL for
   * what is left `termGraceMs` later.
   */
  finish(exitGraceMs: number, termGraceMs: number): Promise<TriggerOutcome>;
}

export interface TriggerOptions {
  command: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Removes secrets from what the trigger printed. */
  redact: (text: string) => string;
}

export function startTrigger(options: TriggerOptions): RunningTrigger {
  let output = Buffer.alloc(0);
  const keep = (chunk: Buffer) => {
    output = Buffer.concat([output, chunk]);
    if (output.length > TRIGGER_OUTPUT_BYTES) output = output.subarray(output.length - TRIGGER_OUTPUT_BYTES);
  };
  let stoppedByCai = false;
  const child = spawn('sh', ['-c', options.command], {
    env: options.env,
    cwd: options.cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<TriggerOutcome>((resolve) => {
    const text = () => options.redact(output.toString('utf8'));
    child.once('error', (error) => {
      resolve({ stoppedByCai, error: errorMessage(error), output: text() });
    });
    // 'exit', not 'close': a sender the trigger started in the background may hold its output open for long.
    child.once('exit', (code, signal) => {
      resolve({
        ...(code !== null ? { exitCode: code } : {}),
        ...(signal ? { signal } : {}),
        stoppedByCai,
        output: text(),
      });
    });
  });
  /** Signals the trigger's process group (what it started in the background too); false when none is left. */
  const signalGroup = (signal: NodeJS.Signals | 0): boolean => {
    if (child.pid === undefined) return false;
    try {
      process.kill(-child.pid, signal);
      return true;
    } catch {
      return false;
    }
  };
  const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
  const within = (ms: number) => Promise.race([exited.then(() => true), pause(ms).then(() => false)]);
  return {
    exited,
    async finish(exitGraceMs, termGraceMs) {
      if (!(await within(exitGraceMs))) stoppedByCai = true;
      // The trigger, or a sender it left running in the background: stop the whole group.
      if (signalGroup('SIGTERM')) {
        await within(termGraceMs);
        for (let waited = 0; waited < termGraceMs && signalGroup(0); waited += 50) await pause(50);
        signalGroup('SIGKILL');
      }
      child.stdout.destroy();
      child.stderr.destroy();
      return exited;
    },
  };
}
