import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { SPEC_PATHS } from '../helpers/spec-sections.js';
import {
  classifyStatus,
  isRejection,
  statusRule,
  STATUS_TABLE,
  unauthorisedReasonOf,
} from '../../src/spec/statuses.js';
import { isWellFormedRetryAfter, parseRetryAfter } from '../../src/spec/retry-after.js';
import { isDuplicateAck } from '../../src/spec/acknowledgment.js';

// §7 as the spec writes it (checked against the spec itself where it is present beside the clone).
const SECTION_7 = `
| 202 | Event accepted, or discarded as a duplicate | None |
| 400 | Invalid schema | Do not retry. Correct the body. |
| 401 | Invalid signature, timestamp outside the window, unrecognised provider, or unauthorised origin | Do not retry. Check credential, clock and registered origin. |
| 413 | Body larger than 256 KB | Do not retry. Reduce the event. |
| 429 | Request cap reached | Retry after the number in the \`Retry-After\` header. |
| 5xx | Temporary unavailability | Retry with exponential backoff for up to 24 hours. |
`;
const SPEC_PATH = SPEC_PATHS.find((path) => existsSync(path));

describe('§7 status table', () => {
  it('holds every row of the spec, with its condition and client action word for word', () => {
    if (SPEC_PATH) expect(readFileSync(SPEC_PATH, 'utf8')).toContain(SECTION_7.trim());
    const rows = [...SECTION_7.matchAll(/^\| (\d{3}|5xx) \| (.+?) \| (.+?) \|$/gm)].map(
      ([, status, condition, action]) => ({ status, condition, action }),
    );
    expect(rows.map((row) => row.status)).toEqual(STATUS_TABLE.map((rule) => rule.status));
    for (const row of rows) {
      const rule = STATUS_TABLE.find((candidate) => candidate.status === row.status);
      expect(rule?.condition).toBe(row.condition);
      // The spec writes `Retry-After` in backticks; the table keeps the words.
      expect(rule?.clientAction.replace(/\.$/, '')).toBe((row.action ?? '').replace(/`/g, '').replace(/\.$/, ''));
    }
  });

  it('names the row of any status it covers, 5xx as one range', () => {
    expect(statusRule(401)?.action).toBe('do-not-retry');
    expect(statusRule(503)?.status).toBe('5xx');
    expect(statusRule(599)?.action).toBe('backoff');
    expect(statusRule(404)).toBeUndefined();
  });

  it.each([
    [200, 'accepted'],
    [202, 'accepted'],
    [299, 'accepted'],
    [301, 'redirect'],
    [400, 'rejected'],
    [401, 'rejected'],
    [413, 'rejected'],
    [429, 'rate-limited'],
    [500, 'retryable'],
    [503, 'retryable'],
    [100, 'rejected'],
    [600, 'rejected'],
  ] as const)('classifies %i as %s (§6.5, §7)', (status, expected) => {
    expect(classifyStatus(status)).toBe(expected);
  });

  it('calls every 4xx but 429 a rejection', () => {
    expect([400, 401, 404, 413, 499].every(isRejection)).toBe(true);
    expect([429, 500, 202, 302].some(isRejection)).toBe(false);
  });

  it('maps verify() failures to the 401 reasons', () => {
    expect(unauthorisedReasonOf('timestamp_too_old')).toBe('timestamp_outside_window');
    expect(unauthorisedReasonOf('timestamp_in_future')).toBe('timestamp_outside_window');
    expect(unauthorisedReasonOf('missing_timestamp')).toBe('missing_signature');
    expect(unauthorisedReasonOf('signature_mismatch')).toBe('invalid_signature');
    expect(unauthorisedReasonOf('malformed_signature')).toBe('invalid_signature');
  });
});

describe('Retry-After (§7)', () => {
  const NOW = Date.parse('2026-11-22T13:00:00Z');
  it('reads delay-seconds and HTTP-dates', () => {
    expect(parseRetryAfter('2', NOW)).toBe(2000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 13:00:05 GMT', NOW)).toBe(5000);
    expect(parseRetryAfter('later', NOW)).toBeUndefined();
  });
  it('judges the form strictly for receivers', () => {
    expect(isWellFormedRetryAfter('0')).toBe(true);
    expect(isWellFormedRetryAfter('Sun, 22 Nov 2026 13:00:05 GMT')).toBe(true);
    expect(isWellFormedRetryAfter('2026-11-22T13:00:05Z')).toBe(false);
    expect(isWellFormedRetryAfter('1.5')).toBe(false);
  });
});

describe('duplicate acknowledgment (§2.13)', () => {
  it('is 202 {"ok":true,"duplicate":true} and nothing else', () => {
    const body = Buffer.from('{"ok":true,"duplicate":true}');
    expect(isDuplicateAck({ status: 202, body })).toBe(true);
    expect(isDuplicateAck({ status: 200, body })).toBe(false);
    expect(isDuplicateAck({ status: undefined, body })).toBe(false);
    expect(isDuplicateAck({ status: 202, body: Buffer.from('{"duplicate":true}') })).toBe(false);
    expect(isDuplicateAck({ status: 202, body: Buffer.from('{"ok":true}') })).toBe(false);
  });
});
