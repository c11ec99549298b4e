import { closeSync, openSync, writeSync } from 'node:fs';
import { recordLine, type MockLogRecordHead } from '../../src/mock/log.js';

const PLACEHOLDER = 'evt_@@@@@@@@@@@@@@@@@@@@@@@@';

/** The event_id of record `index` of a generated log: fixed width, so every line has the same length. */
export function generatedEventId(prefix: string, index: number): string {
  return `${prefix}${index.toString(16).padStart(PLACEHOLDER.length - prefix.length, '0')}`;
}

/**
 * Writes `count` accepted Interface B records straight to `path`, as the platform mock writes them (recordLine),
 * without a mock: hundreds of thousands of lines in a second or two. Returns the bytes written.
 */
export function writeEventLog(path: string, count: number, prefix = 'evt_'): number {
  const head: MockLogRecordHead = {
    v: 1,
    received_at: '2026-11-22T13:00:00.000Z',
    space: 'live',
    interface: 'B',
    kind: 'event',
    status: 202,
    verdict: 'accepted',
    provider_code: 'acme',
    event_id: PLACEHOLDER,
    event: 'job.closed',
    headers: { 'x-cai-provider': 'acme', 'content-type': 'application/json' },
  };
  const parts = recordLine(
    head,
    Buffer.from(`{"event":"job.closed","event_id":"${PLACEHOLDER}","outcome":"no_answer"}`),
  ).split(PLACEHOLDER);
  const fd = openSync(path, 'w');
  let written = 0;
  try {
    let batch: string[] = [];
    for (let index = 0; index < count; index += 1) {
      batch.push(parts.join(generatedEventId(prefix, index)));
      if (batch.length === 20_000 || index === count - 1) {
        written += writeSync(fd, batch.join(''));
        batch = [];
      }
    }
  } finally {
    closeSync(fd);
  }
  return written;
}
