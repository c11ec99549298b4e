/**
 * A parsed document's verdict by its kind (§2.2 contact jobs, §2.4 events, the acknowledgments of §2.3 and §2.13): the
 * compiled validators' answer (fast-validate.generated.ts), the warnings (the fields an event type usually carries,
 * §2.4; unknown fields under `strict`, §9.2; plain-http callback URLs, §5.8) and the branch catalog. The body's own
 * verdicts (UTF-8, JSON, §8's size) are validate-fast.ts's, which asks this module for the rest.
 */
import { EVENT_TYPES, type EventType } from './constants.js';
import { eventTypeSpec } from './event-types.js';
import { FAST_VALIDATORS, KNOWN_FIELDS } from './fast-validate.generated.js';
import { describe, kindOfValue, type FastValidator, type ValidationIssue } from './issues.js';
import { asObject, isObject } from './json.js';

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
  /**
   * Report a name given twice in one object (a warning): a pass over the text that costs about half a JSON.parse,
   * so asked where a person reads the verdict of a document, not on a receiver's or a stream's hot path.
   */
  repeatedNames?: boolean;
}

/** The schemas a document is checked against: a kind's, an event type's, or the envelope of an unknown type. */
export type SchemaTarget = 'job' | 'ack' | 'duplicate-ack' | 'envelope' | EventType;

/** The issues of a document its schema refuses (the compiled validator said no; for the envelope, always asked). */
export type Refusal = (target: SchemaTarget, doc: Record<string, unknown>) => ValidationIssue[];

type Doc = Record<string, unknown>;

/** The entry of a table fast-validate.generated.ts holds for `target`, which the build writes for every target. */
function generated<T>(table: Readonly<Record<string, T>>, target: string, what: string): T {
  const entry = table[target];
  if (!entry) throw new Error(`no ${what} for ${target}: run npm run build`);
  return entry;
}
export const fastValidator = (target: string): FastValidator =>
  generated(FAST_VALIDATORS, target, 'compiled validator');
const knownFields = (target: string): ReadonlySet<string> => new Set(generated(KNOWN_FIELDS, target, 'known fields'));

const FAST_JOB = fastValidator('job');
const KNOWN_JOB_FIELDS = {
  '': knownFields('job'),
  contact: knownFields('job.contact'),
  origin: knownFields('job.origin'),
  brief: knownFields('job.brief'),
};
/** The acknowledgments (§2.3, §2.13): a schema and the fields it knows, nothing more to check. */
const ACKS = {
  ack: { fast: fastValidator('ack'), known: knownFields('ack') },
  'duplicate-ack': { fast: fastValidator('duplicate-ack'), known: knownFields('duplicate-ack') },
};

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

export function validateValue(value: unknown, options: ValidateOptions, refusal: Refusal): DocumentVerdict {
  const requested = options.kind ?? 'auto';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const kind = requested === 'auto' ? 'unknown' : requested;
    // The kind of value only: a JSON string or number that is not inside an object may be a secret file given by mistake.
    return verdict(kind, undefined, [
      {
        path: '',
        code: 'not_object',
        message: 'a document must be a JSON object',
        expected: 'an object',
        received: kindOfValue(value),
      },
    ]);
  }
  const doc = value as Doc;
  const kind = requested === 'auto' ? detectKind(doc) : requested;
  switch (kind) {
    case 'job':
      return validateJob(doc, options, refusal);
    case 'event':
      return validateEvent(doc, options, refusal);
    case 'ack':
    case 'duplicate-ack':
      return validateAck(kind, doc, options, refusal);
    default:
      return verdict('unknown', undefined, [
        {
          path: '',
          code: 'unknown_kind',
          message: 'cannot tell what this document is: it has neither "event" (an event) nor "contact" (a contact job)',
          expected: 'a contact job, an event, or an acknowledgment',
        },
      ]);
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
  const contact = asObject(doc.contact);
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
    return verdict('event', typeof type === 'string' ? type : undefined, refusal('envelope', doc));
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

function validateAck(kind: keyof typeof ACKS, doc: Doc, options: ValidateOptions, refusal: Refusal): DocumentVerdict {
  const errors = schemaErrors(ACKS[kind].fast, kind, doc, refusal);
  const warnings: ValidationIssue[] = [];
  if (options.strict) unknownFields(doc, ACKS[kind].known, '', warnings);
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

export function verdict(
  kind: DocumentKind | 'unknown',
  eventType: string | undefined,
  errors: ValidationIssue[],
  warnings: ValidationIssue[] = [],
): DocumentVerdict {
  // One object literal per shape (eventType last, when there is one), rather than a property added afterwards.
  if (eventType === undefined) return { kind, valid: errors.length === 0, errors, warnings };
  return { kind, valid: errors.length === 0, errors, warnings, eventType };
}
