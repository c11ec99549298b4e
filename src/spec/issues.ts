/**
 * The one text form of a validation issue (src/spec/validate.ts), for every place that shows one: `cai validate`,
 * `cai sample`, the sending commands' refusals and batch records, and the mocks' 400 messages.
 * Pure string work, no imports, so domain code and terminal code can both use it.
 */

/** The parts of a ValidationIssue that its text shows. */
interface IssueText {
  /** Dotted JSON path; `""` is the document itself. */
  path: string;
  message: string;
  expected?: string;
  received?: string;
}

/** `path: message (expected …, got …)`; `(document)` stands for the empty path. */
export function describeIssue(issue: IssueText): string {
  const details = [issue.expected !== undefined ? `expected ${issue.expected}` : undefined, issue.received !== undefined ? `got ${issue.received}` : undefined].filter(Boolean);
  return `${issue.path === '' ? '(document)' : issue.path}: ${issue.message}${details.length ? ` (${details.join(', ')})` : ''}`;
}
