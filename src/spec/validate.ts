/**
 * Validation of the interface's documents (§2). Verdicts are returned values; these functions never throw.
 * On the hot path of the mock receivers and the batch sender: schemas are built once, at module load.
 *
 * Two validators, one definition: the zod schemas of schemas.ts, and functions compiled from them at build time
 * (fast-validate.generated.ts: zod → JSON Schema → ajv standalone code), about three times faster on a valid
 * document. The compiled function answers "valid?"; when it says no, zod gives the exact issues, so messages
 * are zod's as before (and zod's verdict is the one kept). Warnings never come from either: they are computed
 * here from the document in both cases. test/unit/fast-validate.test.ts proves the two agree.
 *
 * Errors are breaches of what the spec states. Warnings are what a type usually carries where the spec
 * says "not shown" (§2.4: which fields each event type requires beyond `event` and `event_id`), unknown
 * fields under `strict` (§9.2 accepts them), and advice (plain-http callback URL, §5.8).
 */
import { isUtf8 } from 'node:buffer';
import * as z from 'zod';
import { EVENT_TYPES, MAX_BODY_BYTES, type EventType } from './constants.js';
import { Brief, Contact, ContactJob, DuplicateAck, EventEnvelope, EventSchemas, JobAck, Origin } from './schemas.js';
import { describeJsonFailure } from './json-syntax.js';
import { FAST_VALIDATORS } from './fast-validate.generated.js';
import { isObject } from './json.js';
import { describe, inputAt, kindOfValue, safeParseIssues, schemaIssues, toIssue, type FastValidator, type ValidationIssue } from './schema-issues.js';
import { eventTypeSpec } from './event-types.js';

export type DocumentKind = 'job' | 'event' | 'ack' | 'duplicate-ack';
export const DOCUMENT_KINDS: readonly DocumentKind[] = ['job', 'event', 'ack', 'duplicate-ack'];

export { describe, formatPath, inputAt, type ValidationIssue } from './schema-issues.js';

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

const keysOf = (schema: { shape: object }): ReadonlySet<string> => new Set(Object.keys(schema.shape));
const KNOWN_JOB_FIELDS = { '': keysOf(ContactJob), contact: keysOf(Contact), origin: keysOf(Origin), brief: keysOf(Brief) } as const;
const KNOWN_EVENT_FIELDS = Object.fromEntries(EVENT_TYPES.map((type) => [type, keysOf(EventSchemas[type])])) as Record<EventType, ReadonlySet<string>>;
const KNOWN_ACK_FIELDS = keysOf(JobAck);
const KNOWN_DUPLICATE_FIELDS = keysOf(DuplicateAck);

function fastValidator(target: string): FastValidator {
  const fast = FAST_VALIDATORS[target];
  if (!fast) throw new Error(`no compiled validator for ${target}: run npm run build`);
  return fast;
}
const FAST_JOB = fastValidator('job');
const FAST_ACK = fastValidator('ack');
const FAST_DUPLICATE_ACK = fastValidator('duplicate-ack');

/** Everything validateEvent needs about an event type (§6), found with one look-up. */
interface EventRules {
  eventType: EventType;
  usual: readonly string[];
  /** Whether the document carries every usual field: the test of the warnings loop, without the loop. */
  hasUsual: (doc: Doc) => boolean;
  known: ReadonlySet<string>;
  /** The issues of an event of this type that the compiled function refused (fieldIssues). */
  fields: FieldChecks;
}
const EVENT_RULES: ReadonlyMap<string, EventRules> = new Map(
  EVENT_TYPES.map((eventType) => {
    const usual = eventTypeSpec(eventType).usual;
    const fields = fieldChecks(EventSchemas[eventType], fastValidator(eventType), { event: eventType, event_id: 'e' });
    return [eventType, { eventType, usual, hasUsual: allPresent(usual), known: KNOWN_EVENT_FIELDS[eventType], fields }];
  }),
);

/**
 * An invalid event costs zod a run of its whole schema, every field, the first ones cold (in a fresh process 1 000
 * invalid events took about 26 ms, zod's run of the one wrong field alone 6 ms). The schemas of events are loose
 * objects of independent fields (schemas.ts: no object-level rule), for which zod's issues are those of each field's
 * schema at the field's value, in the order of the shape, each path prefixed with the field's name (zod's
 * $ZodObject). So zod runs only for the fields that fail: the compiled function finds them, each field's value tried
 * alone on a probe, a document of the type that it finds valid. Same issues (test/unit/fast-validate.test.ts
 * compares them with zod's on the whole document); where the probe is not valid, or no field fails (a
 * disagreement), zod checks the whole document.
 */
interface FieldChecks {
  schema: z.ZodType;
  fast: FastValidator;
  /**
   * `base` with every field of the shape, those it does not have set to undefined (which the compiled functions
   * read as absent), so that every probe has one shape (V8's hidden class); undefined when the compiled function
   * refuses `base`: then zod checks whole documents.
   */
  probe: Doc | undefined;
  keys: readonly string[];
  shape: Readonly<Record<string, z.ZodType>>;
}
function fieldChecks(schema: z.ZodObject, fast: FastValidator, base: Doc): FieldChecks {
  const shape = schema.shape as Record<string, z.ZodType>;
  const keys = Object.keys(shape);
  const probe: Doc = {};
  for (const key of keys) probe[key] = base[key];
  return { schema, fast, probe: fast(probe) ? probe : undefined, keys, shape };
}

/** The schema's issues with `doc`, zod running only for the fields the compiled function refuses (FieldChecks). */
function fieldIssues(checks: FieldChecks, doc: Doc): ValidationIssue[] {
  if (checks.fast(doc)) return [];
  const { probe } = checks;
  if (probe === undefined) return schemaIssues(checks.schema, undefined, doc);
  const issues: ValidationIssue[] = [];
  for (const key of checks.keys) {
    // The field's value alone on the valid probe, which then gets its own value back.
    const own = probe[key];
    probe[key] = doc[key];
    let valid: boolean;
    try {
      valid = checks.fast(probe);
    } finally {
      probe[key] = own;
    }
    if (valid) continue;
    const result = safeParseIssues(checks.shape[key] as z.ZodType, doc[key]);
    if (result.success) continue;
    for (const issue of result.error.issues) {
      const path = [key, ...issue.path];
      issues.push(toIssue({ ...issue, path } as z.core.$ZodIssue, inputAt(doc, path)));
    }
  }
  return issues.length > 0 ? issues : schemaIssues(checks.schema, undefined, doc);
}

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
const NO_OPTIONS: ValidateOptions = Object.freeze({});

/** Validates a parsed JSON value as a document of the interface. Never throws. */
export function validateDocument(value: unknown, options: ValidateOptions = NO_OPTIONS): DocumentVerdict {
  try {
    return validateValue(value, options);
  } catch (error) {
    // A bug here must not take down a receiver: report it as a verdict.
    return verdict('unknown', undefined, [{ path: '', code: 'internal', message: `internal validator error: ${String(error)}` }], []);
  }
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
export function unreadVerdict(byteLength: number, options: ValidateOptions, text: { subject: string; advice?: string }): DocumentVerdict {
  const kind: DocumentKind | 'unknown' = options.kind && options.kind !== 'auto' ? options.kind : 'unknown';
  const reason = kind === 'job' ? 'over the size cai reads' : 'far over the 256 KB limit (§8)';
  const message = `${text.subject} ${byteLength} bytes, ${reason}; not parsed${text.advice ? ` (${text.advice})` : ''}`;
  return verdict(kind, undefined, [{ path: '', code: 'too_large', message, expected: `${MAX_BODY_BYTES} bytes at most`, received: `${byteLength} bytes` }], []);
}

/**
 * Validates a body exactly as received: UTF-8 (§2), JSON, the 256 KB limit (§8, Interface B), then the
 * document. Never throws.
 */
export function validateBody(raw: Uint8Array, options: ValidateOptions = NO_OPTIONS): DocumentVerdict {
  const sizeIssue = raw.byteLength > MAX_BODY_BYTES ? bodySizeIssue(raw.byteLength) : undefined;
  const text = (Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)).toString('utf8');
  // Decoding replaces every invalid UTF-8 sequence with U+FFFD, so a text without one came from valid UTF-8 and
  // only a text with one (sent as such, or a replaced sequence) needs the exact check. toString keeps a BOM visible.
  if (text.includes('\uFFFD') && !isUtf8(raw)) {
    return verdict(explicitKindOf(options), undefined, [{ path: '', code: 'not_utf8', message: 'not valid UTF-8 (§2: bodies are JSON, UTF-8)' }, ...(sizeIssue ? [sizeIssue] : [])], []);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return verdict(explicitKindOf(options), undefined, [notJsonIssue(text), ...(sizeIssue ? [sizeIssue] : [])], []);
  }
  const result = validateDocument(value, options);
  if (sizeIssue) {
    // §8 states the limit for Interface B; a contact job over it is only a warning.
    if (result.kind === 'job') result.warnings.push({ ...sizeIssue, message: `${sizeIssue.message}; §8 states the limit for events, but receivers may refuse it` });
    else {
      result.errors.push(sizeIssue);
      result.valid = false;
    }
  }
  return result;
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
    return { path: '', code: 'not_json', message: 'not JSON: starts with a byte order mark (U+FEFF) at line 1, column 1', expected: 'JSON without a byte order mark' };
  }
  return { path: '', code: 'not_json', message: `not JSON: ${describeJsonFailure(text)}` };
}

function validateValue(value: unknown, options: ValidateOptions): DocumentVerdict {
  const requested = options.kind ?? 'auto';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const kind = requested === 'auto' ? 'unknown' : requested;
    // The kind of value only: a JSON string or number that is not inside an object may be a secret file given by mistake.
    return verdict(kind, undefined, [{ path: '', code: 'not_object', message: 'a document must be a JSON object', expected: 'an object', received: kindOfValue(value) }], []);
  }
  const doc = value as Doc;
  const kind = requested === 'auto' ? detectKind(doc) : requested;
  switch (kind) {
    case 'job':
      return validateJob(doc, options);
    case 'event':
      return validateEvent(doc, options);
    case 'ack':
      return validateSimple('ack', JobAck, FAST_ACK, KNOWN_ACK_FIELDS, doc, options);
    case 'duplicate-ack':
      return validateSimple('duplicate-ack', DuplicateAck, FAST_DUPLICATE_ACK, KNOWN_DUPLICATE_FIELDS, doc, options);
    default:
      return verdict('unknown', undefined, [
        {
          path: '',
          code: 'unknown_kind',
          message: 'cannot tell what this document is: it has neither "event" (an event) nor "contact" (a contact job)',
          expected: 'a contact job, an event, or an acknowledgment',
        },
      ], []);
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

function validateJob(doc: Doc, options: ValidateOptions): DocumentVerdict {
  const errors = schemaIssues(ContactJob, FAST_JOB, doc);
  const warnings: ValidationIssue[] = [];
  if (options.catalog) checkCatalog(doc.branch_code, 'branch_code', options.catalog, errors);
  const contact = isObject(doc.contact) ? doc.contact : undefined;
  if (contact && typeof contact.name === 'string' && contact.name.trim() === '') {
    warnings.push({ path: 'contact.name', code: 'blank', message: 'the contact name is blank' });
  }
  if (contact && typeof contact.email === 'string' && !/^[^\s@]+@[^\s@]+$/.test(contact.email)) {
    warnings.push({ path: 'contact.email', code: 'implausible_email', message: 'does not look like an e-mail address', expected: 'local@domain', received: describe(contact.email) });
  }
  if (typeof doc.callback_url === 'string' && /^http:/i.test(doc.callback_url)) {
    warnings.push({ path: 'callback_url', code: 'insecure_url', message: 'plain http: §5.8 requires TLS 1.2 or above in production', expected: 'https://…', received: describe(doc.callback_url) });
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

function validateEvent(doc: Doc, options: ValidateOptions): DocumentVerdict {
  const type = doc.event;
  const rules = typeof type === 'string' ? EVENT_RULES.get(type) : undefined;
  if (rules === undefined) {
    // The type is missing or unknown: report that, and whatever else is wrong with the envelope.
    return verdict('event', typeof type === 'string' ? type : undefined, schemaIssues(EventEnvelope, undefined, doc), []);
  }
  const { eventType } = rules;
  const errors = fieldIssues(rules.fields, doc);
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

function validateSimple(kind: DocumentKind, schema: z.ZodType, fast: FastValidator, known: ReadonlySet<string>, doc: Doc, options: ValidateOptions): DocumentVerdict {
  const errors = schemaIssues(schema, fast, doc);
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
    expected: known.length <= 5 ? `one of: ${known.join(', ')}` : `one of the ${known.length} catalog codes (${known.slice(0, 5).join(', ')}, …)`,
    received: describe(value),
  });
}

function unknownFields(doc: Doc, known: ReadonlySet<string>, prefix: string, warnings: ValidationIssue[]): void {
  for (const key of Object.keys(doc)) {
    if (!known.has(key)) {
      warnings.push({ path: `${prefix}${key}`, code: 'unknown_field', message: 'not a field of spec v1.0 (accepted: §9.2 receivers ignore unknown fields)' });
    }
  }
}

function verdict(kind: DocumentKind | 'unknown', eventType: string | undefined, errors: ValidationIssue[], warnings: ValidationIssue[]): DocumentVerdict {
  // One object literal per shape (eventType last, when there is one), rather than a property added afterwards.
  if (eventType === undefined) return { kind, valid: errors.length === 0, errors, warnings };
  return { kind, valid: errors.length === 0, errors, warnings, eventType };
}
