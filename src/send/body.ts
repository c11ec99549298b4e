/**
 * The body of one send: a file or stdin, sent byte for byte (§5.2: the signature covers the bytes as transmitted),
 * or a generated sample with its overrides (the fields set and unset, a job's callback_url and branch_code).
 */
import { codedError, optionName } from '../errors.js';
import { readBodyInput } from '../input.js';
import type { Io } from '../io.js';
import type { EventType } from '../spec/constants.js';
import type { DocumentVerdict } from '../spec/validate.js';
import type { SendKind } from '../http/send.js';

/**
 * Where the body comes from: a file (`-` for stdin) or stdin, sent as is; or a sample of the kind (an event of
 * `eventType`) with overrides (`set` texts as parseSetOverride reads them, `unset` paths) and, for a job, its
 * callback_url and branch_code.
 */
export type BodySource =
  | { from: 'input'; file?: string }
  | {
      from: 'sample';
      eventType?: EventType;
      set?: string[];
      unset?: string[];
      callbackUrl?: string;
      branchCode?: string;
    };

interface PreparedBody {
  body: Buffer;
  /** The file the body came from, when it did (a curl command can send that file). */
  file?: string;
  /** For a generated body: what it is (`contact job`, `job.closed event`) and its event_id. */
  generated?: { what: string; eventId?: string; placeholderCallbackUrl?: string };
}

export async function prepareBody(kind: SendKind, source: BodySource, io: Io): Promise<PreparedBody> {
  return source.from === 'sample' ? generateBody(kind, source) : readBody(source.file, io);
}

async function readBody(file: string | undefined, io: Io): Promise<PreparedBody> {
  const body = await readBodyInput(file, io, 'body', optionName('body'));
  if (body.length === 0) throw codedError('usage', 'empty_body', 'the body is empty');
  return { body, ...(file !== undefined && file !== '-' ? { file } : {}) };
}

async function generateBody(kind: SendKind, source: Extract<BodySource, { from: 'sample' }>): Promise<PreparedBody> {
  const { sampleJob, sampleEvent, applyOverrides, parseSetOverride, isPlaceholderCallbackUrl } = await import(
    '../spec/sample.js'
  );
  let document: Record<string, unknown>;
  if (kind === 'job') {
    document = sampleJob({
      ...(source.callbackUrl !== undefined ? { callbackUrl: source.callbackUrl } : {}),
      ...(source.branchCode !== undefined ? { branchCode: source.branchCode } : {}),
    });
  } else {
    document = sampleEvent(source.eventType ?? 'conversation.message');
  }
  const set = (source.set ?? []).map((text) => parseSetOverride(text));
  if (set.length || source.unset?.length) document = applyOverrides(document, { set, unset: source.unset ?? [] });
  const what = kind === 'job' ? 'contact job' : `${String(document.event ?? 'event')} event`;
  const generated: PreparedBody['generated'] = {
    what,
    ...(document.event_id !== undefined ? { eventId: String(document.event_id) } : {}),
  };
  // A sampled job's callback_url is a placeholder unless --callback-url (or --set) gave a real one.
  if (kind === 'job' && isPlaceholderCallbackUrl(document.callback_url))
    generated.placeholderCallbackUrl = String(document.callback_url);
  return { body: Buffer.from(JSON.stringify(document), 'utf8'), generated };
}

/** The schema check before sending (skipped with --no-validate). */
export async function checkBody(kind: SendKind, body: Buffer): Promise<DocumentVerdict> {
  const { validateBody } = await import('../spec/validate.js');
  return validateBody(body, { kind, repeatedNames: true });
}
