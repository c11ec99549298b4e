/**
 * A stage's timeline (`<stage>/timeline.txt` beside a sender's reproductions) holds one line per attempt: what the
 * sender chose (its path, event_id, X-CAI-Timestamp) is escaped, so a `cat` of it moves no cursor and no field can
 * begin a line that reads as another attempt.
 */
import { describe, expect, it } from 'vitest';
import { timeline } from '../../src/commands/conformance/repro.js';
import type { Attempt, StageRecord } from '../../src/conformance/evidence.js';
import { ACCEPTED, scenario } from '../../src/conformance/listen/scenarios.js';

const FORGED_LINE = '\n+1 ms #9 POST /x event_id forged, X-CAI-Timestamp 1, 2 bytes → 202';
const HOSTILE = `id\u001b[2J\u001b]0;T\u0007\u009b31m\u202eRTL\u2066\u2028LS\u2029PS\r${FORGED_LINE}`;

function attempt(body: object, headers: Record<string, string>, path: string): Attempt {
  const bytes = Buffer.from(JSON.stringify(body));
  return {
    arrivedAt: 0,
    arrivedMono: 5,
    method: 'POST',
    path,
    headers,
    rawHeaders: Object.entries(headers),
    httpVersion: '1.1',
    body: bytes,
    bodyBytes: bytes.length,
    answer: ACCEPTED,
    stage: 'accept',
    number: 1,
  } as Attempt;
}

describe('timeline', () => {
  it('escapes the event_id, the X-CAI-Timestamp and the path: one line per attempt, nothing a terminal acts on', () => {
    const record = {
      scenario: scenario('accept'),
      id: 'accept',
      targetUrl: 'http://127.0.0.1:1/accept/events',
      expectedPath: '/accept/events',
      startedAt: 0,
      startedMono: 0,
      attempts: [attempt({ event_id: HOSTILE }, { 'x-cai-timestamp': HOSTILE }, `/accept/events\u009b${FORGED_LINE}`)],
    } as unknown as StageRecord;
    const text = timeline(record, 'B');
    const lines = text.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('');
    // Nothing unsafe is left raw: no C0 but the line feeds cai writes, no C1, no bidi control, no separator.
    expect(text.replace(/\n/g, '')).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/);
    expect(lines[1]).toContain(
      'event_id id\\x1b[2J\\x1b]0;T\\x07\\u009b31m\\u202eRTL\\u2066\\u2028LS\\u2029PS\\r\\n+1 ms #9',
    );
    expect(lines[1]).toContain('POST /accept/events\\u009b\\n+1 ms #9 POST /x');
    expect(lines[1]).toMatch(/^\+\d+(\.\d+)? m?s #1 POST /);
  });
});
