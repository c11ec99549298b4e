/**
 * The verdicts of the interface's documents (§2), all but the messages of a schema's refusal: UTF-8, JSON, the
 * 256 KB limit (§8) here, then the kind, the compiled validators' answer, the warnings and the branch catalog
 * (validate-document.ts). No zod: where a compiled validator refuses a document, its issues are the `refusal`'s to
 * give (validate.ts asks zod). `cai validate` gives the verdict of a valid document from here alone, so that a run
 * over valid documents never loads the schemas; validate.ts gives every verdict through the same code.
 */
import { isUtf8 } from 'node:buffer';
import { MAX_BODY_BYTES } from './constants.js';
import type { ValidationIssue } from './issues.js';
import { describeJsonFailure, duplicateKeys, type DuplicateKey } from './json-syntax.js';
import {
  validateValue,
  verdict,
  type DocumentKind,
  type DocumentVerdict,
  type Refusal,
  type ValidateOptions,
} from './validate-document.js';

export { detectKind, DOCUMENT_KINDS } from './validate-document.js';
export type {
  Branch,
  DocumentKind,
  DocumentVerdict,
  Refusal,
  SchemaTarget,
  ValidateOptions,
} from './validate-document.js';

const NO_OPTIONS: ValidateOptions = Object.freeze({});

/** Thrown by the refusal of fastBodyVerdict: the document needs the schemas' messages. */
const NEEDS_SCHEMAS = Symbol('needs the schemas');

/**
 * The verdict of a body without the schemas: every verdict but those where a schema refuses the document, which
 * are undefined (validate.ts gives them, with zod's messages).
 */
export function fastBodyVerdict(raw: Uint8Array, options: ValidateOptions = NO_OPTIONS): DocumentVerdict | undefined {
  try {
    return verdictOfBody(raw, options, () => {
      throw NEEDS_SCHEMAS;
    });
  } catch (error) {
    if (error === NEEDS_SCHEMAS) return undefined;
    throw error;
  }
}

/** Validates a parsed JSON value as a document of the interface, a refusal's issues by `refusal`. Never throws but its. */
export function verdictOfValue(value: unknown, options: ValidateOptions, refusal: Refusal): DocumentVerdict {
  try {
    return validateValue(value, options, refusal);
  } catch (error) {
    if (error === NEEDS_SCHEMAS) throw error;
    // A bug here must not take down a receiver: report it as a verdict.
    return verdict('unknown', undefined, [
      { path: '', code: 'internal', message: `internal validator error: ${String(error)}` },
    ]);
  }
}

/**
 * Validates a body exactly as received: UTF-8 (§2), JSON, the 256 KB limit (§8, Interface B), then the
 * document, a refusal's issues by `refusal`.
 */
export function verdictOfBody(raw: Uint8Array, options: ValidateOptions, refusal: Refusal): DocumentVerdict {
  const sizeIssue = raw.byteLength > MAX_BODY_BYTES ? bodySizeIssue(raw.byteLength) : undefined;
  const text = (Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)).toString('utf8');
  // Decoding replaces every invalid UTF-8 sequence with U+FFFD, so a text without one came from valid UTF-8 and
  // only a text with one (sent as such, or a replaced sequence) needs the exact check. toString keeps a BOM visible.
  if (text.includes('\uFFFD') && !isUtf8(raw)) {
    return verdict(explicitKindOf(options), undefined, [
      { path: '', code: 'not_utf8', message: 'not valid UTF-8 (§2: bodies are JSON, UTF-8)' },
      ...(sizeIssue ? [sizeIssue] : []),
    ]);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return verdict(explicitKindOf(options), undefined, [notJsonIssue(text), ...(sizeIssue ? [sizeIssue] : [])]);
  }
  const result = verdictOfValue(value, options, refusal);
  if (options.repeatedNames)
    for (const duplicate of duplicateKeys(text, value)) result.warnings.push(duplicateKeyIssue(duplicate));
  if (sizeIssue) {
    // §8 states the limit for Interface B; a contact job over it is only a warning.
    if (result.kind === 'job')
      result.warnings.push({
        ...sizeIssue,
        message: `${sizeIssue.message}; §8 states the limit for events, but receivers may refuse it`,
      });
    else {
      result.errors.push(sizeIssue);
      result.valid = false;
    }
  }
  return result;
}

/** A name given twice in one object: valid JSON (RFC 8259 §4 says names should be unique), read two ways. */
function duplicateKeyIssue({ path, count }: DuplicateKey): ValidationIssue {
  return {
    path,
    code: 'duplicate_key',
    message: `given ${count} times in one object: JSON.parse keeps the last value, other parsers the first (RFC 8259 §4: names should be unique)`,
  };
}

/** §8: the 256 KB limit, as an issue (an error for events, a warning for jobs: §8 states it for Interface B). */
function bodySizeIssue(byteLength: number): ValidationIssue {
  return {
    path: '',
    code: 'too_large',
    message: `body is ${byteLength} bytes, over the 256 KB limit (§8: 413 on Interface B)`,
    expected: `at most ${MAX_BODY_BYTES} bytes`,
    received: `${byteLength} bytes`,
  };
}

/**
 * A body over the cap that cai reads (`capBytes`, far beyond §8), invalid without being parsed. `where` names
 * what was too large (`line` or the file) and `advice` the way out. The §8 limit is only cited for events: a job
 * that size is refused here because cai did not read it, not because §8 forbids it.
 */
export function unreadVerdict(
  byteLength: number,
  options: ValidateOptions,
  text: { subject: string; advice?: string },
): DocumentVerdict {
  const kind = explicitKindOf(options);
  const reason = kind === 'job' ? 'over the size cai reads' : 'far over the 256 KB limit (§8)';
  const message = `${text.subject} ${byteLength} bytes, ${reason}; not parsed${text.advice ? ` (${text.advice})` : ''}`;
  return verdict(kind, undefined, [
    {
      path: '',
      code: 'too_large',
      message,
      expected: `${MAX_BODY_BYTES} bytes at most`,
      received: `${byteLength} bytes`,
    },
  ]);
}

function explicitKindOf(options: ValidateOptions): DocumentKind | 'unknown' {
  return options.kind && options.kind !== 'auto' ? options.kind : 'unknown';
}

/**
 * Where and what kind of problem, never the bytes: a body that is not JSON may be a secret file given
 * by mistake, and V8's own message quotes the start of the input.
 */
function notJsonIssue(text: string): ValidationIssue {
  if (text.charCodeAt(0) === 0xfeff) {
    return {
      path: '',
      code: 'not_json',
      message: 'not JSON: starts with a byte order mark (U+FEFF) at line 1, column 1',
      expected: 'JSON without a byte order mark',
    };
  }
  return { path: '', code: 'not_json', message: `not JSON: ${describeJsonFailure(text)}` };
}
