/**
 * What a schema says is wrong with a document, as cai says it (validate, the mocks' 400s, the conformance checks):
 * zod's issues turned into stable codes (`required`, `format`, `enum`, `too_long` …), a dotted path, what was
 * expected and a short, safe rendering of what was received (issues.ts writes them as text).
 */
import * as z from 'zod';
import { MAX_EVENT_ID_LENGTH } from './constants.js';
import { describe, formatPath, type ValidationIssue } from './issues.js';
import {
  DATE_TIME_PATTERN,
  E164_PATTERN,
  EVENT_ID_PATTERN,
  FORMAT_BY_PATTERN,
  HTTP_URL_PATTERN,
  LANGUAGE_TAG_PATTERN,
  type FormatInfo,
} from './formats.js';

/**
 * The schema's issues with `doc`, asked once its compiled function refused it: zod parses, collecting inputs, for the
 * exact issues (none if zod finds the document valid after all: zod decides).
 */
export function schemaIssues(schema: z.ZodType, doc: Record<string, unknown>): ValidationIssue[] {
  const result = safeParseIssues(schema, doc);
  return result.success ? [] : result.error.issues.map((issue) => toIssue(issue, inputAt(doc, issue.path)));
}

/**
 * The value an issue is about, read at its path as zod reads it (`input[key]`, level by level): what zod reports as
 * `input` with `reportInput`, which costs zod a third of the time of an invalid document. The schemas transform
 * nothing, so the value at the path is the one zod checked (test/unit/fast-validate.test.ts checks it).
 */
export function inputAt(doc: unknown, path: readonly PropertyKey[]): unknown {
  let value = doc;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/**
 * zod's own safeParse with a plain holder of the issues instead of a ZodError: the issues are the same (zod
 * finalises them), without building an Error and its stack for each invalid document (it cost a third of the
 * time of an invalid one). `_safeParse` is zod's public factory for safeParse with another error class.
 */
class IssueList {
  constructor(readonly issues: z.core.$ZodIssue[]) {}
}
export const safeParseIssues = z.core._safeParse(IssueList as unknown as z.core.$ZodErrorClass);

// The only number of §2 is `attempts`, an integer: zod reports a non-number there as expected `number`.
const TYPE_NAMES: Record<string, string> = {
  int: 'a whole number',
  number: 'a whole number',
  string: 'a string',
  object: 'an object',
  boolean: 'a boolean',
  array: 'an array',
};

function typeOfValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `a string ${describe(value)}`;
  if (typeof value === 'number' && !Number.isFinite(value)) return describe(value);
  return `${typeof value} ${describe(value)}`;
}

// zod names a failed pattern by the RegExp's text (`/…/u`): the formats by that text, computed once.
const EVENT_ID_PATTERN_TEXT = EVENT_ID_PATTERN.toString();
const FORMAT_BY_ISSUE_PATTERN: ReadonlyMap<string, FormatInfo> = new Map(
  [E164_PATTERN, DATE_TIME_PATTERN, LANGUAGE_TAG_PATTERN, HTTP_URL_PATTERN, EVENT_ID_PATTERN].flatMap((pattern) => {
    const format = FORMAT_BY_PATTERN.get(pattern.source);
    return format ? [[pattern.toString(), format] as const] : [];
  }),
);

/** A field missing, or null (refused: an optional field is omitted instead, ./schemas.ts), whatever was expected. */
function absent(path: string, input: undefined | null, expected: string | undefined): ValidationIssue {
  return input === undefined
    ? { path, code: 'required', message: 'required field is missing', expected }
    : {
        path,
        code: 'null',
        message: 'null is not allowed: omit an optional field instead',
        expected,
        received: 'null',
      };
}

export function toIssue(issue: z.core.$ZodIssue, input: unknown): ValidationIssue {
  const path = formatPath(issue.path);
  switch (issue.code) {
    case 'invalid_type': {
      const expected = TYPE_NAMES[issue.expected] ?? issue.expected;
      if (input === undefined || input === null) return absent(path, input, expected);
      if (issue.expected === 'int' && typeof input === 'number')
        return { path, code: 'not_integer', message: 'must be a whole number', expected, received: describe(input) };
      return { path, code: 'type', message: `must be ${expected}`, expected, received: typeOfValue(input) };
    }
    case 'invalid_value': {
      const values = issue.values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
      const oneOf = `one of: ${values.join(', ')}`;
      if (input === undefined) return absent(path, input, values.length === 1 ? values[0] : oneOf);
      if (input === null) return absent(path, input, oneOf);
      const received = describe(input);
      if (path === 'event')
        return { path, code: 'unknown_event_type', message: 'not an event type of §6', expected: oneOf, received };
      if (values.length === 1)
        return { path, code: 'value', message: `must be ${values[0]}`, expected: values[0], received };
      return { path, code: 'enum', message: 'not one of the allowed values', expected: oneOf, received };
    }
    case 'invalid_format': {
      const pattern = 'pattern' in issue && typeof issue.pattern === 'string' ? issue.pattern : '';
      if (pattern === EVENT_ID_PATTERN_TEXT) {
        const length = typeof input === 'string' ? [...input].length : 0;
        return length === 0
          ? { path, code: 'empty', message: 'must not be empty', expected: `1 to ${MAX_EVENT_ID_LENGTH} characters` }
          : {
              path,
              code: 'too_long',
              message: `is ${length} characters, over the ${MAX_EVENT_ID_LENGTH}-character limit (§8)`,
              expected: `at most ${MAX_EVENT_ID_LENGTH} characters`,
              received: `${length} characters`,
            };
      }
      const format =
        FORMAT_BY_ISSUE_PATTERN.get(pattern) ?? FORMAT_BY_PATTERN.get(pattern.replace(/^\/(.*)\/[a-z]*$/s, '$1'));
      return {
        path,
        code: 'format',
        message: format?.message ?? 'wrong format',
        expected: format?.expected ?? pattern,
        received: describe(input),
      };
    }
    case 'too_small':
      if (issue.origin === 'string')
        return { path, code: 'empty', message: 'must not be empty', expected: 'a non-empty string', received: '""' };
      return {
        path,
        code: 'minimum',
        message: `must be ${String(issue.minimum)} or more`,
        expected: `>= ${String(issue.minimum)}`,
        received: describe(input),
      };
    case 'too_big':
      return {
        path,
        code: 'maximum',
        message: `must be at most ${String(issue.maximum)}`,
        expected: `<= ${String(issue.maximum)}`,
        received: describe(input),
      };
    default:
      return { path, code: issue.code, message: issue.message };
  }
}
