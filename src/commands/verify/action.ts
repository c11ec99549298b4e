/**
 * `cai verify`, its action: the signature checked (§5), every problem named, a mismatch diagnosed. Loaded when the
 * command runs, not at every start-up.
 */
import type { CommandContext } from '../common/runner.js';
import { hasSecretOptions, secretsFromOptions, signingSecrets } from '../common/secret-options.js';
import { requireOptions } from '../common/options.js';
import { readBodyInput, readFileInput } from '../../input.js';
import { usageError } from '../../errors.js';
import { Headers } from '../../spec/constants.js';
import type { VerifyResult } from '../../signing/verify.js';
import type { Diagnosis } from '../../signing/diagnose.js';
import type { SignatureProblem } from '../../signing/every-problem.js';
import type { Secret } from '../../secrets/resolve.js';
import { safeText } from '../../output/safe-text.js';

export interface VerifyOptions {
  signature?: string;
  timestamp?: string;
  body?: string;
  request?: string;
  now?: number;
  window: number;
  example?: string | boolean;
  [key: string]: unknown;
}

export async function runVerify(options: VerifyOptions, context: CommandContext): Promise<number> {
  const { io, output } = context;
  if (options.example !== undefined) {
    // The worked example's modules load only when asked for (start-up of plain signing and verifying).
    return (await import('../sign/example.js')).showSignatureExample(options.example, context);
  }
  const secrets = signingSecrets(options, context);
  const otherSecrets = hasSecretOptions(options, 'other-secret')
    ? secretsFromOptions(options, 'other-secret', context)
    : [];
  const inputs = await gatherInputs(options, context);
  inputs.notes.forEach((note) => output.note(note));

  // The verifying core (and node:crypto) loads with this command, not with every start-up.
  const [{ verify }, { everyProblem }] = await Promise.all([
    import('../../signing/verify.js'),
    import('../../signing/every-problem.js'),
  ]);
  const input = {
    secrets: secrets.map((secret) => secret.value),
    signature: inputs.signature,
    timestamp: inputs.timestamp,
    rawBody: inputs.body,
    now: options.now ?? Math.floor(io.now() / 1000),
    windowSeconds: options.window,
  };
  const result = verify(input);
  // verify() stops at the first problem; a request may have several (a stale timestamp and a wrong signature).
  const problems = everyProblem(input, result);
  // The diagnosis runs only for an invalid signature, so its module loads only then.
  const diagnoses = result.valid
    ? []
    : (await import('../../signing/diagnose.js')).diagnose({
        ...input,
        otherSecrets: otherSecrets.map((secret) => secret.value),
        result,
      });
  render(result, problems, diagnoses, secrets, context);
  return result.valid ? 0 : 1;
}

/** The signature, timestamp and body to verify: from the flags, or from a captured request (notes say what was replaced). */
async function gatherInputs(options: VerifyOptions, { io }: CommandContext) {
  if (options.request !== undefined) {
    if (options.body !== undefined)
      throw usageError('conflicting_options', '--request and --body both give the body', 'pass one of them');
    const { parseRawRequest } = await import('../../http/raw-request.js');
    const parsed = parseRawRequest(await readFileInput(options.request, io, 'request'));
    if (!parsed.ok) {
      throw usageError(
        'bad_request_file',
        `${options.request} is not a raw HTTP request: ${parsed.message}`,
        'capture it as: request line, headers, one blank line, then the body bytes',
      );
    }
    const { headers, body, notes } = parsed.request;
    if (options.signature !== undefined)
      notes.push('--signature is used instead of the captured X-CAI-Signature header');
    if (options.timestamp !== undefined)
      notes.push('--timestamp is used instead of the captured X-CAI-Timestamp header');
    return {
      signature: options.signature ?? headers[Headers.signature],
      timestamp: options.timestamp ?? headers[Headers.timestamp],
      body,
      notes,
    };
  }
  const [signature, timestamp] = requireOptions([
    {
      flag: '--signature',
      value: options.signature,
      how: '--signature sha256=<hex> (or --request FILE with the captured request)',
    },
    { flag: '--timestamp', value: options.timestamp, how: '--timestamp <unix seconds> as received in X-CAI-Timestamp' },
  ]) as [string, string];
  return { signature, timestamp, body: await readBodyInput(options.body, io), notes: [] };
}

function render(
  result: VerifyResult,
  problems: SignatureProblem[],
  diagnoses: Diagnosis[],
  secrets: Secret[],
  { output }: CommandContext,
): void {
  const matched = result.matchedSecretIndex === undefined ? undefined : secrets[result.matchedSecretIndex];
  if (output.json) {
    output.printJson({
      ...result,
      matchedSecret: matched ? { position: (result.matchedSecretIndex ?? 0) + 1, source: matched.label } : undefined,
      problems,
      diagnoses,
    });
    return;
  }
  if (result.valid) {
    const which =
      secrets.length > 1
        ? ` with secret #${(result.matchedSecretIndex ?? 0) + 1} of ${secrets.length} (${matched?.label})`
        : '';
    output.result(
      `${output.color.green('valid')}: the signature matches${which}; timestamp ${result.ageSeconds} s old, within ±${result.windowSeconds} s`,
    );
    return;
  }
  // The messages quote the signature and timestamp as received: escaped before colouring.
  output.result(`${output.color.red('invalid')} (${result.reason}): ${safeText(result.message)}`);
  for (const problem of problems.slice(1)) output.result(`  also (${problem.reason}): ${safeText(problem.message)}`);
  for (const diagnosis of diagnoses) {
    const lead =
      diagnosis.code === 'signature_over_other_content' ||
      diagnosis.code === 'clock_skew' ||
      diagnosis.code === 'reserialisation_skipped'
        ? ''
        : 'likely cause: ';
    output.result(`  ${lead}${safeText(diagnosis.message)}`);
  }
}
