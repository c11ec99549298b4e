/**
 * Validation of the interface's documents (§2). Verdicts are returned values; these functions never throw.
 * On the hot path of the mock receivers and the batch sender: schemas are built once, at module load. The verdict
 * is validate-fast.ts's; this module gives it the schemas' messages where a schema refuses a document (zod).
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
import * as z from 'zod';
import { EVENT_TYPES } from './constants.js';
import { EventEnvelope, EventSchemas, ContactJob, DuplicateAck, JobAck } from './schemas.js';
import { fastValidator } from './validate-document.js';
import type { FastValidator, ValidationIssue } from './issues.js';
import { inputAt, safeParseIssues, schemaIssues, toIssue } from './schema-issues.js';
import {
  verdictOfBody,
  verdictOfValue,
  type DocumentVerdict,
  type Refusal,
  type SchemaTarget,
  type ValidateOptions,
} from './validate-fast.js';

export {
  detectKind,
  DOCUMENT_KINDS,
  type Branch,
  type DocumentKind,
  type DocumentVerdict,
  type ValidateOptions,
} from './validate-fast.js';
export { inputAt } from './schema-issues.js';
export type { ValidationIssue } from './issues.js';

type Doc = Record<string, unknown>;

const NO_OPTIONS: ValidateOptions = Object.freeze({});

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
  if (probe === undefined) return schemaIssues(checks.schema, doc);
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
  return issues.length > 0 ? issues : schemaIssues(checks.schema, doc);
}

const EVENT_FIELDS: ReadonlyMap<string, FieldChecks> = new Map(
  EVENT_TYPES.map((eventType) => [
    eventType,
    fieldChecks(EventSchemas[eventType], fastValidator(eventType), { event: eventType, event_id: 'e' }),
  ]),
);
const SCHEMAS: Readonly<Record<'job' | 'ack' | 'duplicate-ack' | 'envelope', z.ZodType>> = {
  job: ContactJob,
  ack: JobAck,
  'duplicate-ack': DuplicateAck,
  envelope: EventEnvelope,
};

/** zod's issues with a document its schema refuses: an event type's field by field (FieldChecks), the rest whole. */
const zodRefusal: Refusal = (target: SchemaTarget, doc: Doc) => {
  const fields = EVENT_FIELDS.get(target);
  return fields ? fieldIssues(fields, doc) : schemaIssues(SCHEMAS[target as keyof typeof SCHEMAS], doc);
};

/** Validates a parsed JSON value as a document of the interface. Never throws. */
export function validateDocument(value: unknown, options: ValidateOptions = NO_OPTIONS): DocumentVerdict {
  return verdictOfValue(value, options, zodRefusal);
}

/**
 * Validates a body exactly as received: UTF-8 (§2), JSON, the 256 KB limit (§8, Interface B), then the
 * document. Never throws.
 */
export function validateBody(raw: Uint8Array, options: ValidateOptions = NO_OPTIONS): DocumentVerdict {
  return verdictOfBody(raw, options, zodRefusal);
}

/** A body's errors as a document of `kind`, its size aside (§8 is judged on its own), and the first two in words. */
export function documentErrors(body: Uint8Array, kind: 'job' | 'event'): { errors: ValidationIssue[]; why: string } {
  const errors = validateBody(body, { kind }).errors.filter((issue) => issue.code !== 'too_large');
  const why = errors
    .slice(0, 2)
    .map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message))
    .join('; ');
  return { errors, why };
}
