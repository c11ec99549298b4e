/**
 * `cai replay`, its action: a captured request sent again, signed afresh or as it was. Loaded when the
 * command runs, not at every start-up.
 */
import type { SharedFlags } from '../common/flags.js';
import { requireOptions } from '../common/options.js';
import type { CommandContext } from '../common/runner.js';
import { signingSecret } from '../common/secret-options.js';
import { retryPolicyOf, type TransportOptions } from '../common/send-options.js';
import type { Output } from '../../output/output.js';
import type { KeptTimestamp } from '../../send/replay.js';
import { SIGNATURE_WINDOW_SECONDS } from '../../spec/constants.js';

export interface ReplayOptions extends TransportOptions, Pick<SharedFlags, 'to'> {
  request?: string;
  keepTimestamp?: boolean;
}

export async function runReplay(options: ReplayOptions, context: CommandContext): Promise<number> {
  const { io, output } = context;
  const policy = await retryPolicyOf(options, output);
  if (typeof policy === 'number') return policy;
  const [file, to] = requireOptions([
    { flag: '--request', value: options.request, how: '--request FILE with the captured raw HTTP request' },
    { flag: '--to', value: options.to, how: 'the URL to send to, e.g. --to http://127.0.0.1:8787' },
  ]) as [string, string];
  const { keptTimestamp, planReplay, readCapture, replay } = await import('../../send/replay.js');
  const captured = await readCapture(file, io);
  captured.notes.forEach((note) => output.note(note));
  if (captured.method !== 'POST')
    output.note(`the capture is a ${captured.method}; the interface has POST only (§1), so it is replayed as a POST`);

  const keep = options.keepTimestamp === true;
  const secret = keep ? undefined : signingSecret(options, context);
  if (keep) describeKeptTimestamp(keptTimestamp(captured, io.now()), output);
  const plan = planReplay(captured, to, keep);
  if (options.dryRun) {
    const [{ signForDryRun }, { renderDryRun }] = await Promise.all([
      import('../../send/dry-run.js'),
      import('../send/dry-run-view.js'),
    ]);
    return renderDryRun(
      signForDryRun({ url: plan.url, headers: plan.headers, body: plan.body }, secret, io.now()),
      options.format,
      output,
      keep ? 'kept' : 'fresh',
    );
  }
  const { deliverWatched } = await import('../send/delivery-progress.js');
  return deliverWatched(plan.url, options, policy, context, (deliver) => replay(plan, secret, deliver));
}

function describeKeptTimestamp(kept: KeptTimestamp, output: Output): void {
  if (!kept.present) {
    output.warn(
      'the capture has no X-CAI-Timestamp or X-CAI-Signature: it is sent without them, and a conforming receiver answers 401 (§5)',
    );
    return;
  }
  if (kept.malformed) {
    output.warn(
      `the captured X-CAI-Timestamp ${JSON.stringify(kept.timestamp)} is not an integer number of unix seconds (§4): it is sent as it is, and a conforming receiver answers 401`,
    );
    return;
  }
  const age = kept.ageSeconds;
  const where = kept.inside ? 'inside' : 'outside';
  output.note(
    `keeping X-CAI-Timestamp ${kept.timestamp}: ${Math.abs(age)} s ${age >= 0 ? 'old' : 'in the future'}, ${where} the ±${SIGNATURE_WINDOW_SECONDS} s window (§5.5)${kept.inside ? '' : '; a conforming receiver answers 401'}`,
  );
}
