/**
 * `cai sample`, its action: a document made, shaped by the overrides, checked, printed. Loaded when the
 * command runs, not at every start-up.
 */
import type { CommandContext } from '../common/runner.js';
import { pipeWriter } from '../../output/pipe-writer.js';
import { jsonText } from '../../output/safe-text.js';
import { plural } from '../../text.js';
import type { DocumentKind, DocumentVerdict } from '../../spec/validate.js';
import { describeIssue } from '../../spec/issues.js';
import type { EventType } from '../../spec/constants.js';

export interface SampleOptions {
  set?: string[];
  unset?: string[];
  count: number;
  strict?: boolean;
  compact?: boolean;
  callbackUrl?: string;
  branchCode?: string;
  leadId?: string;
  providerJobId?: string;
}
export type Target = { kind: 'job' } | { kind: 'event'; type: EventType } | { kind: 'ack' } | { kind: 'duplicate-ack' };

export async function runSample(target: Target, options: SampleOptions, context: CommandContext): Promise<number> {
  const { io } = context;
  const samples = await import('../../spec/sample.js');
  const { validateDocument } = await import('../../spec/validate.js');
  const overrides = {
    set: (options.set ?? []).map((text) => samples.parseSetOverride(text)),
    unset: options.unset ?? [],
  };
  const now = new Date(io.now());
  const make = (): Record<string, unknown> => {
    switch (target.kind) {
      case 'job':
        return samples.sampleJob({ callbackUrl: options.callbackUrl, branchCode: options.branchCode, now });
      case 'event':
        return samples.sampleEvent(target.type, {
          leadId: options.leadId,
          providerJobId: options.providerJobId,
          branchCode: options.branchCode,
          now,
        });
      case 'ack':
        return samples.sampleAck();
      case 'duplicate-ack':
        return samples.sampleDuplicateAck();
    }
  };
  const kind: DocumentKind = target.kind;
  const changed = overrideFlags(options).length > 0;
  const out = pipeWriter(io.stdout);
  for (let index = 0; index < options.count; index++) {
    const document = samples.applyOverrides(make(), overrides);
    // Only overrides can make a sample invalid; checking the first document says it for all of them.
    if (index === 0 && changed) {
      const verdict = validateDocument(document, { kind, strict: true }); // strict: a mistyped --set path shows up as an unknown field
      if (!verdict.valid && options.strict) {
        reportInvalid(verdict, overrideFlags(options), context);
        return 1;
      }
      reportProblems(verdict, context);
    }
    const text = options.count === 1 && !options.compact ? jsonText(document, 2) : jsonText(document);
    if (!(await out.write(context.output.printable(text) + '\n'))) break; // the reader has gone (| head): stop quietly
  }
  return 0;
}

function reportProblems(verdict: DocumentVerdict, { output }: CommandContext): void {
  if (!verdict.valid)
    output.warn(
      `your overrides make the document invalid (${plural(verdict.errors.length, 'error')}); printed anyway:`,
    );
  for (const issue of verdict.errors) output.warn(`  ${describeIssue(issue)}`);
  for (const issue of verdict.warnings) output.note(describeIssue(issue));
}

/** The flags that change a field of the sample: each can make it invalid (an empty lead_id), so each is checked as --set is. */
function overrideFlags(options: SampleOptions): string[] {
  const fields: [string, unknown][] = [
    ['--lead-id', options.leadId],
    ['--provider-job-id', options.providerJobId],
    ['--branch-code', options.branchCode],
    ['--callback-url', options.callbackUrl],
  ];
  return [
    ...((options.set ?? []).length > 0 || (options.unset ?? []).length > 0 ? ['--set/--unset'] : []),
    ...fields.filter(([, value]) => value !== undefined).map(([flag]) => flag),
  ];
}

function reportInvalid(verdict: DocumentVerdict, flags: string[], { output }: CommandContext): void {
  const first = verdict.errors[0];
  const message = `your overrides make the document invalid: ${first ? describeIssue(first) : 'invalid'}${verdict.errors.length > 1 ? ` (and ${verdict.errors.length - 1} more)` : ''}`;
  const values = flags.length === 1 && flags[0] !== '--set/--unset' ? 'value' : 'values';
  const hint = `change the ${flags.join(', ')} ${values}, or drop --strict to print it anyway`;
  if (output.json) {
    output.printJson({
      ok: false,
      error: { code: 'invalid_document', message, hint, exitCode: 1 },
      errors: verdict.errors,
    });
    return;
  }
  output.error(message, hint);
}
