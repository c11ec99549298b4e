/**
 * A-ACCEPT-002 judges the job acknowledgment with src/spec's checkJobAck (§2.3), where it once used the zod
 * document validator: the two must agree on every body, so the check's verdicts did not move.
 */
import { describe, expect, it } from 'vitest';
import { checkJobAck } from '../../src/spec/acknowledgment.js';
import { validateDocument } from '../../src/spec/validate.js';

const BODIES: Record<string, string> = {
  valid: '{"provider_job_id":"pj_1","assigned_number_e164":"+447700900123"}',
  'unknown fields': '{"provider_job_id":"pj_1","assigned_number_e164":"+447700900123","eta":"soon"}',
  'national number': '{"provider_job_id":"pj_1","assigned_number_e164":"07700 900123"}',
  'number too short': '{"provider_job_id":"pj_1","assigned_number_e164":"+1"}',
  'number as number': '{"provider_job_id":"pj_1","assigned_number_e164":447700900123}',
  'numeric job id': '{"provider_job_id":42,"assigned_number_e164":"+447700900123"}',
  'empty job id': '{"provider_job_id":"","assigned_number_e164":"+447700900123"}',
  'no job id': '{"assigned_number_e164":"+447700900123"}',
  'no number': '{"provider_job_id":"pj_1"}',
  'empty object': '{}',
  array: '[{"provider_job_id":"pj_1","assigned_number_e164":"+447700900123"}]',
  null: 'null',
  string: '"ok"',
  'not JSON': '{"provider_job_id":',
  empty: '',
};

function zodVerdict(text: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    return false;
  }
  return validateDocument(value, { kind: 'ack' }).valid;
}

describe('the job acknowledgment judgement (A-ACCEPT-002)', () => {
  it.each(Object.entries(BODIES))('%s: checkJobAck agrees with the schema', (_name, text) => {
    const verdict = checkJobAck({
      status: 202,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(text, 'utf8'),
    });
    expect(verdict.ok).toBe(zodVerdict(text));
  });

  it('names the field and the rule in its problems', () => {
    const verdict = checkJobAck({
      status: 202,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(BODIES['national number'] as string),
    });
    expect(verdict.problems).toEqual([
      'assigned_number_e164 is "07700 900123", not an E.164 number such as +447700900123 (§2.1, §2.3)',
    ]);
  });
});
