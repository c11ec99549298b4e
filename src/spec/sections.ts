/**
 * Where the spec states the rule a validation issue breaks: the section of each field of §2 (and the enumerations
 * it names). `cai validate` reports paths and codes; this adds the sections a person looks up (the inspector's list
 * of validation errors shows them).
 */
import type { ValidationIssue } from './validate.js';

// §2.2: the contact job's fields; the ones with an enumeration or a format of their own point there too.
const JOB_FIELDS: Record<string, readonly string[]> = {
  'contact.phone_e164': ['§2.2', '§2.1'],
  'contact.language': ['§2.2', '§2.1'],
  'origin.channel': ['§2.2', '§2.8'],
  'origin.captured_at': ['§2.2', '§2.1'],
  'brief.intent': ['§2.2', '§2.9'],
};

// §2.4–§2.7: the envelope, then each type's own fields.
const EVENT_FIELDS: Record<string, readonly string[]> = {
  event: ['§2.4', '§6'],
  event_id: ['§2.4', '§6.1'],
  lead_id: ['§2.4', '§6.3'],
  provider_job_id: ['§2.4'],
  channel: ['§2.4', '§2.10'],
  from_number_e164: ['§2.4', '§2.1'],
  direction: ['§2.4', '§2.10'],
  author: ['§2.4', '§2.11'],
  text: ['§2.4', '§2.5'],
  occurred_at: ['§2.4', '§2.1'],
  branch_code: ['§2.6'],
  scheduled_at: ['§2.6', '§2.1'],
  service: ['§2.6'],
  notes: ['§2.6'],
  outcome: ['§2.7', '§2.12'],
  attempts: ['§2.7'],
};

// Issues about the whole body: §2 (JSON, UTF-8), §8 (size).
const DOCUMENT_CODES: Record<string, readonly string[]> = {
  not_json: ['§2'],
  not_utf8: ['§2'],
  too_large: ['§8'],
  not_object: ['§2'],
  unknown_kind: ['§2.2', '§2.4'],
};

/** A table's entry for `key`, when the table has it: a field name from the network may be `constructor`. */
function entryOf(table: Record<string, readonly string[]>, key: string): readonly string[] | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** The sections behind one issue of a job (Interface A) or an event (Interface B). */
export function sectionsOf(issue: Pick<ValidationIssue, 'path' | 'code'>, kind: 'job' | 'event'): string[] {
  const sections = new Set<string>(
    issue.path === ''
      ? (entryOf(DOCUMENT_CODES, issue.code) ?? [kind === 'job' ? '§2.2' : '§2.4'])
      : kind === 'job'
        ? (entryOf(JOB_FIELDS, issue.path) ?? ['§2.2'])
        : (entryOf(EVENT_FIELDS, issue.path.split('.')[0] as string) ?? ['§2.4']),
  );
  if (issue.code === 'too_long') sections.add('§8');
  if (issue.code === 'unknown_field') sections.add('§9.2');
  if (issue.code === 'unknown_branch') sections.add('§1');
  if (issue.code === 'format') sections.add('§2.1');
  return [...sections];
}
