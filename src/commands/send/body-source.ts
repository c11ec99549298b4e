/**
 * Where a send's body comes from, as its flags say: `--body FILE` (or stdin), or `--sample [TYPE]` with `--set`,
 * `--unset`, `--callback-url` and `--branch-code`. The flags that shape a sample are refused with a file: it is sent
 * byte for byte (§5.2), so there is nothing for them to change.
 */
import { usageError } from '../../errors.js';
import { EVENT_TYPES, type EventType } from '../../spec/constants.js';
import type { BodySource } from '../../send/body.js';
import type { SendKind } from '../../http/send.js';
import type { SendOptions } from '../common/send-options.js';

type BodyFlags = Pick<SendOptions, 'body' | 'sample' | 'set' | 'unset' | 'callbackUrl' | 'branchCode'>;

export function bodySourceOf(kind: SendKind, options: BodyFlags): BodySource {
  const sampling = options.sample !== undefined && options.sample !== false;
  if (sampling && options.body !== undefined) {
    throw usageError('conflicting_options', '--body and --sample both give the body', 'pass one of them');
  }
  if (!sampling) {
    if (options.set?.length || options.unset?.length) {
      const hint = 'a --body file is sent byte for byte (§5.2): edit the file instead';
      throw usageError('conflicting_options', '--set and --unset work with --sample only', hint);
    }
    for (const [flag, field, value] of [
      ['--callback-url', 'callback_url', options.callbackUrl],
      ['--branch-code', 'branch_code', options.branchCode],
    ] as const)
      if (value !== undefined)
        throw usageError(
          'conflicting_options',
          `${flag} works with --sample only`,
          `set ${field} in the body file instead`,
        );
    return { from: 'input', ...(options.body !== undefined ? { file: options.body } : {}) };
  }
  return {
    from: 'sample',
    ...(kind === 'event' ? { eventType: eventTypeOf(options.sample) } : {}),
    ...(options.set ? { set: options.set } : {}),
    ...(options.unset ? { unset: options.unset } : {}),
    ...(options.callbackUrl !== undefined ? { callbackUrl: options.callbackUrl } : {}),
    ...(options.branchCode !== undefined ? { branchCode: options.branchCode } : {}),
  };
}

/** `--sample` alone: a conversation.message; `--sample TYPE`: that event type (§2.4), or a usage error. */
function eventTypeOf(sample: string | boolean | undefined): EventType {
  const type = sample === true || sample === undefined ? 'conversation.message' : String(sample);
  if (!(EVENT_TYPES as readonly string[]).includes(type)) {
    throw usageError('bad_option', `--sample ${type}: not an event type`, `use one of: ${EVENT_TYPES.join(', ')}`);
  }
  return type as EventType;
}
