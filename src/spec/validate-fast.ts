/**
 * The verdicts of the interface's documents (§2), all but the messages of a schema's refusal: UTF-8, JSON, the
 * 256 KB limit (§8), the kind, the compiled validators' answer (fast-validate.generated.ts), the warnings (the fields
 * an event type usually carries, §2.4; unknown fields under `strict`, §9.2; plain-http callback URLs, §5.8) and the
 * branch catalog. No zod: where a compiled validator refuses a document, its issues are the `refusal`'s to give
 * (validate.ts asks zod). `cai validate` gives the verdict of a valid document from here alone, so that a run over
 * valid documents never loads the schemas; validate.ts gives every verdict through the same code.
 */
import { isUtf8 } from 'node:buffer';
import { EVENT_TYPES, MAX_BODY_BYTES, type EventType } from './constants.js';
import { eventTypeSpec } from './event-types.js';
import { FAST_VALIDATORS, KNOWN_FIELDS } from './fast-validate.generated.js';
import { describe, kindOfValue, type FastValidator, type ValidationIssue } from './issues.js';
import { describeJsonFailure } from './json-syntax.js';
import { isObject } from './json.js';

export type DocumentKind = 'job' | 'event' | 'ack' | 'duplicate-ack';
export const DOCUMENT_KINDS: readonly DocumentKind[] = ['job', 'event', 'ack', 'duplicate-ack'];

export interface DocumentVerdict {
  kind: DocumentKind | 'unknown';
  eventType?: string;
  valid: boolean;
  errors: ValidationIssue[];
  warnings: ValidationIssue[];
}

export interface Branch {
  branch_code: string;
  name: string;
}

export interface ValidateOptions {
  /** What the document should be; `auto` (the default) decides by shape. */
  kind?: DocumentKind | 'auto';
  /** The deployment's branch catalog: a `branch_code` outside it is an error. */
  catalog?: readonly Branch[];
  /** Report unknown fields as warnings (never errors: §9.2). */
  strict?: boolean;
}

type Doc = Record<string, unknown>;

/** The schemas a document is checked against: a kind's, an event type's, or the envelope of an unknown type. */
export type SchemaTarget = 'job' | 'ack' | 'duplicate-ack' | 'envelope' | EventType;

/** The issues of a document its schema refuses (the compiled validator said no; for the envelope, always asked). */
export type Refusal = (target: SchemaTarget, doc: Doc) => ValidationIssue[];

const NO_OPTIONS: ValidateOptions = Object.freeze({});

function fastValidator(target: string): FastValidator {
  const fast = FAST_VALIDATORS[target];
  if (!fast) throw new Error(`no compiled validator for ${target}: run npm run build`);
  return fast;
}

function knownFields(target: string): ReadonlySet<string> {
  const fields = KNOWN_FIELDS[target];
  if (!fields) throw new Error(`no known fields for ${target}: run npm run build`);
  return new Set(fields);
}

const FAST_JOB = fastValidator('job');
const FAST_ACK = fastValidator('ack');
const FAST_DUPLICATE_ACK = fastValidator('duplicate-ack');
const KNOWN_JOB_FIELDS = {
  '': knownFields('job'),
  contact: knownFields('job.contact'),
  origin: knownFields('job.origin'),
  brief: knownFields('job.brief'),
};
const KNOWN_ACK_FIELDS = knownFields('ack');
const KNOWN_DUPLICATE_FIELDS = knownFields('duplicate-ack');

/** Everything an event's verdict needs about its type (§6), found with one look-up. */
interface EventRules {
  eventType: EventType;
  usual: readonly string[];
  /** Whether the document carries every usual field: the test of the warnings loop, without the loop. */
  hasUsual: (doc: Doc) => boolean;
  known: ReadonlySet<string>;
  fast: FastValidator;
}
const EVENT_RULES: ReadonlyMap<string, EventRules> = new Map(
  EVENT_TYPES.map((eventType) => {
    const usual = eventTypeSpec(eventType).usual;
    return [
      eventType,
      { eventType, usual, hasUsual: allPresent(usual), known: knownFields(eventType), fast: fastValidator(eventType) },
    ];
  }),
);

/**
 * A test that every one of `fields` is defined on a document: `d["lead_id"] !== undefined && …`, compiled once per
 * event type, so that each reads its fields as named properties of documents of one shape rather than as keys
 * that vary (V8's slowest property look-ups, and five per event). Where code generation is not allowed, a loop.
 */
function allPresent(fields: readonly string[]): (doc: Doc) => boolean {
  try {
    const test = fields.map((field) => `d[${JSON.stringify(field)}] !== undefined`).join(' && ') || 'true';
    return new Function('d', `return ${test};`) as (doc: Doc) => boolean;
  } catch {
    return (doc) => fields.every((field) => doc[field] !== undefined);
  }
}

/** The schema's errors of `doc`: none when its compiled validator accepts it, else the refusal's. */
function schemaErrors(fast: FastValidator, target: SchemaTarget, doc: Doc, refusal: Refusal): ValidationIssue[] {
  return fast(doc) ? [] : refusal(target, doc);
}

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
    return verdict(
      'unknown',
      undefined,
      [{ path: '', code: 'internal', message: `internal validator error: ${String(error)}` }],
      [],
    );
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
    return verdict(
      explicitKindOf(options),
      undefined,
      [
        { path: '', code: 'not_utf8', message: 'not valid UTF-8 (§2: bodies are JSON, UTF-8)' },
        ...(sizeIssue ? [sizeIssue] : []),
      ],
      [],
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return verdict(explicitKindOf(options), undefined, [notJsonIssue(text), ...(sizeIssue ? [sizeIssue] : [])], []);
  }
  const result = verdictOfValue(value, options, refusal);
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
  const kind: DocumentKind | 'unknown' = options.kind && options.kind !== 'auto' ? options.kind : 'unknown';
  const reason = kind === 'job' ? 'over the size cai reads' : 'far over the 256 KB limit (§8)';
  const message = `${text.subject} ${byteLength} bytes, ${reason}; not parsed${text.advice ? ` (${text.advice})` : ''}`;
  return verdict(
    kind,
    undefined,
    [
      {
        path: '',
        code: 'too_large',
        message,
        expected: `${MAX_BODY_BYTES} bytes at most`,
        received: `${byteLength} bytes`,
      },
    ],
    [],
  );
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

function validateValue(value: unknown, options: ValidateOptions, refusal: Refusal): DocumentVerdict {
  const requested = options.kind ?? 'auto';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const kind = requested === 'auto' ? 'unknown' : requested;
    // The kind of value only: a JSON string or number that is not inside an object may be a secret file given by mistake.
    return verdict(
      kind,
      undefined,
      [
        {
          path: '',
          code: 'not_object',
          message: 'a document must be a JSON object',
          expected: 'an object',
          received: kindOfValue(value),
        },
      ],
      [],
    );
  }
  const doc = value as Doc;
  const kind = requested === 'auto' ? detectKind(doc) : requested;
  switch (kind) {
    case 'job':
      return validateJob(doc, options, refusal);
    case 'event':
      return validateEvent(doc, options, refusal);
    case 'ack':
      return validateSimple('ack', FAST_ACK, KNOWN_ACK_FIELDS, doc, options, refusal);
    case 'duplicate-ack':
      return validateSimple('duplicate-ack', FAST_DUPLICATE_ACK, KNOWN_DUPLICATE_FIELDS, doc, options, refusal);
    default:
      return verdict(
        'unknown',
        undefined,
        [
          {
            path: '',
            code: 'unknown_kind',
            message:
              'cannot tell what this document is: it has neither "event" (an event) nor "contact" (a contact job)',
            expected: 'a contact job, an event, or an acknowledgment',
          },
        ],
        [],
      );
  }
}

/** `auto`: decide by shape (§2.2 jobs carry `contact`, §2.4 events carry `event`). */
export function detectKind(doc: Doc): DocumentKind | 'unknown' {
  if ('event' in doc) return 'event';
  if ('contact' in doc) return 'job';
  if ('assigned_number_e164' in doc) return 'ack';
  if ('duplicate' in doc) return 'duplicate-ack';
  return 'unknown';
}

function validateJob(doc: Doc, options: ValidateOptions, refusal: Refusal): DocumentVerdict {
  const errors = schemaErrors(FAST_JOB, 'job', doc, refusal);
  const warnings: ValidationIssue[] = [];
  if (options.catalog) checkCatalog(doc.branch_code, 'branch_code', options.catalog, errors);
  const contact = isObject(doc.contact) ? doc.contact : undefined;
  if (contact && typeof contact.name === 'string' && contact.name.trim() === '') {
    warnings.push({ path: 'contact.name', code: 'blank', message: 'the contact name is blank' });
  }
  if (contact && typeof contact.email === 'string' && !/^[^\s@]+@[^\s@]+$/.test(contact.email)) {
    warnings.push({
      path: 'contact.email',
      code: 'implausible_email',
      message: 'does not look like an e-mail address',
      expected: 'local@domain',
      received: describe(contact.email),
    });
  }
  if (typeof doc.callback_url === 'string' && /^http:/i.test(doc.callback_url)) {
    warnings.push({
      path: 'callback_url',
      code: 'insecure_url',
      message: 'plain http: §5.8 requires TLS 1.2 or above in production',
      expected: 'https://…',
      received: describe(doc.callback_url),
    });
  }
  if (options.strict) {
    unknownFields(doc, KNOWN_JOB_FIELDS[''], '', warnings);
    for (const key of ['contact', 'origin', 'brief'] as const) {
      const nested = doc[key];
      if (isObject(nested)) unknownFields(nested, KNOWN_JOB_FIELDS[key], `${key}.`, warnings);
    }
  }
  return verdict('job', undefined, errors, warnings);
}

function validateEvent(doc: Doc, options: ValidateOptions, refusal: Refusal): DocumentVerdict {
  const type = doc.event;
  const rules = typeof type === 'string' ? EVENT_RULES.get(type) : undefined;
  if (rules === undefined) {
    // The type is missing or unknown: report that, and whatever else is wrong with the envelope.
    return verdict('event', typeof type === 'string' ? type : undefined, refusal('envelope', doc), []);
  }
  const { eventType } = rules;
  const errors = schemaErrors(rules.fast, eventType, doc, refusal);
  const warnings: ValidationIssue[] = [];
  if (!rules.hasUsual(doc)) {
    for (const field of rules.usual) {
      if (doc[field] !== undefined) continue;
      warnings.push({
        path: field,
        code: 'usually_present',
        message: `${eventType} events usually carry ${field}; the spec does not require it ("not shown", §2.4)`,
      });
    }
  }
  if (options.catalog && doc.branch_code !== undefined && eventType.startsWith('appointment.')) {
    checkCatalog(doc.branch_code, 'branch_code', options.catalog, errors);
  }
  if (options.strict) unknownFields(doc, rules.known, '', warnings);
  return verdict('event', eventType, errors, warnings);
}

function validateSimple(
  kind: 'ack' | 'duplicate-ack',
  fast: FastValidator,
  known: ReadonlySet<string>,
  doc: Doc,
  options: ValidateOptions,
  refusal: Refusal,
): DocumentVerdict {
  const errors = schemaErrors(fast, kind, doc, refusal);
  const warnings: ValidationIssue[] = [];
  if (options.strict) unknownFields(doc, known, '', warnings);
  return verdict(kind, undefined, errors, warnings);
}

function checkCatalog(value: unknown, path: string, catalog: readonly Branch[], errors: ValidationIssue[]): void {
  if (typeof value !== 'string' || value === '') return; // the schema reports it
  if (catalog.some((branch) => branch.branch_code === value)) return;
  const known = catalog.map((branch) => branch.branch_code);
  errors.push({
    path,
    code: 'unknown_branch',
    message: 'not in the branch catalog (§2.2: issued per deployment)',
    expected:
      known.length <= 5
        ? `one of: ${known.join(', ')}`
        : `one of the ${known.length} catalog codes (${known.slice(0, 5).join(', ')}, …)`,
    received: describe(value),
  });
}

function unknownFields(doc: Doc, known: ReadonlySet<string>, prefix: string, warnings: ValidationIssue[]): void {
  for (const key of Object.keys(doc)) {
    if (!known.has(key)) {
      warnings.push({
        path: `${prefix}${key}`,
        code: 'unknown_field',
        message: 'not a field of spec v1.0 (accepted: §9.2 receivers ignore unknown fields)',
      });
    }
  }
}

function verdict(
  kind: DocumentKind | 'unknown',
  eventType: string | undefined,
  errors: ValidationIssue[],
  warnings: ValidationIssue[],
): DocumentVerdict {
  // One object literal per shape (eventType last, when there is one), rather than a property added afterwards.
  if (eventType === undefined) return { kind, valid: errors.length === 0, errors, warnings };
  return { kind, valid: errors.length === 0, errors, warnings, eventType };
}
