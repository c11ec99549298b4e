/**
 * The body of one send: a file or stdin, sent byte for byte (§5.2: the signature covers the bytes as transmitted),
 * or a generated sample with the overrides of `--set` / `--unset`, `--callback-url` and `--branch-code`.
 */
import { usageError } from '../errors.js';
import { readBodyInput } from '../input.js';
import type { Io } from '../io.js';
import { EVENT_TYPES, type EventType } from '../spec/constants.js';
import type { DocumentVerdict } from '../spec/validate.js';
import type { SendKind } from './request.js';

/** Where the body comes from, as the flags say. */
interface BodySource {
  /** `--body FILE`, `-` for stdin; absent: stdin too. */
  body?: string;
  /** `--sample` (a job, or the default event type) or `--sample TYPE`. */
  sample?: string | boolean;
  set?: string[];
  unset?: string[];
  callbackUrl?: string;
  branchCode?: string;
}

interface PreparedBody {
  body: Buffer;
  /** The file the body came from, when it did (a curl command can send that file). */
  file?: string;
  /** For a generated body: what it is (`contact job`, `job.closed event`) and its event_id. */
  generated?: { what: string; eventId: string; placeholderCallbackUrl?: string };
}

export async function prepareBody(kind: SendKind, source: BodySource, io: Io): Promise<PreparedBody> {
  const sampling = source.sample !== undefined && source.sample !== false;
  if (sampling && source.body !== undefined) throw usageError('conflicting_options', '--body and --sample both give the body', 'pass one of them');
  return sampling ? generateBody(kind, source) : readBody(source, io);
}

async function readBody(source: BodySource, io: Io): Promise<PreparedBody> {
  if (source.set?.length || source.unset?.length) {
    throw usageError('conflicting_options', '--set and --unset work with --sample only', 'a --body file is sent byte for byte (§5.2): edit the file instead');
  }
  if (source.callbackUrl !== undefined) throw usageError('conflicting_options', '--callback-url works with --sample only', 'set callback_url in the body file instead');
  if (source.branchCode !== undefined) throw usageError('conflicting_options', '--branch-code works with --sample only', 'set branch_code in the body file instead');
  const body = await readBodyInput(source.body, io, 'body', '--body');
  if (body.length === 0) throw usageError('empty_body', 'the body is empty', 'pass --body FILE, pipe the body on stdin, or use --sample');
  return { body, ...(source.body !== undefined && source.body !== '-' ? { file: source.body } : {}) };
}

async function generateBody(kind: SendKind, source: BodySource): Promise<PreparedBody> {
  const { sampleJob, sampleEvent, applyOverrides, parseSetOverride, isPlaceholderCallbackUrl } = await import('../spec/sample.js');
  let document: Record<string, unknown>;
  if (kind === 'job') {
    document = sampleJob({
      ...(source.callbackUrl !== undefined ? { callbackUrl: source.callbackUrl } : {}),
      ...(source.branchCode !== undefined ? { branchCode: source.branchCode } : {}),
    });
  } else {
    const type = source.sample === true ? 'conversation.message' : String(source.sample);
    if (!(EVENT_TYPES as readonly string[]).includes(type)) {
      throw usageError('bad_option', `--sample ${type}: not an event type`, `use one of: ${EVENT_TYPES.join(', ')}`);
    }
    document = sampleEvent(type as EventType);
  }
  const set = (source.set ?? []).map((text) => parseSetOverride(text));
  if (set.length || source.unset?.length) document = applyOverrides(document, { set, unset: source.unset ?? [] });
  const what = kind === 'job' ? 'contact job' : `${String(document.event ?? 'event')} event`;
  const generated: PreparedBody['generated'] = { what, eventId: String(document.event_id) };
  // A sampled job's callback_url is a placeholder unless --callback-url (or --set) gave a real one.
  if (kind === 'job' && isPlaceholderCallbackUrl(document.callback_url)) generated.placeholderCallbackUrl = String(document.callback_url);
  return { body: Buffer.from(JSON.stringify(document), 'utf8'), generated };
}

/** The schema check before sending (skipped with --no-validate). */
export async function checkBody(kind: SendKind, body: Buffer): Promise<DocumentVerdict> {
  const { validateBody } = await import('../spec/validate.js');
  return validateBody(body, { kind });
}
