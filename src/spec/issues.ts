/**
 * The one text form of a validation issue (src/spec/validate.ts), for every place that shows one: `cai validate`,
 * `cai sample`, the sending commands' refusals and batch records, and the mocks' 400 messages.
 * Pure string work, no imports (zod not either), so domain code and terminal code can both use it, and the
 * verdicts of valid documents are given without loading the schemas (validate-fast.ts).
 */

export interface ValidationIssue {
  /** JSON path of the field, dotted (`contact.phone_e164`); `""` is the document itself. */
  path: string;
  /** Stable machine-readable code, e.g. `required`, `format`, `enum`, `unknown_field`. */
  code: string;
  message: string;
  expected?: string;
  received?: string;
}

/** The compiled validator of a schema (fast-validate.generated.js): true when the document is valid. */
export type FastValidator = (data: unknown) => boolean;

/** The dotted JSON path of an issue: `contact.phone_e164`, `items[2]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? String(segment) : `.${String(segment)}`;
  }
  return text;
}

/** A short, safe rendering of a received value for messages. */
export function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') {
    const shown = value.length > 60 ? `${value.slice(0, 57)}…` : value;
    return JSON.stringify(shown);
  }
  // JSON has no infinities: a parsed Infinity was written as a number past a double's range (1e400).
  if (typeof value === 'number' && !Number.isFinite(value)) return 'a number beyond the range of a double';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return typeof value;
}

export function kindOfValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean' ? `a ${type}` : type;
}

/** `path: message (expected …, got …)`; `(document)` stands for the empty path. */
export function describeIssue(issue: Omit<ValidationIssue, 'code'>): string {
  const details = [
    issue.expected !== undefined ? `expected ${issue.expected}` : undefined,
    issue.received !== undefined ? `got ${issue.received}` : undefined,
  ].filter(Boolean);
  return `${issue.path === '' ? '(document)' : issue.path}: ${issue.message}${details.length ? ` (${details.join(', ')})` : ''}`;
}
