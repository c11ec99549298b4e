/**
 * A made-up but plausible operation log (NDJSON as the mocks write it) over several days and branches: jobs, a first
 * outbound message after a spread of delays (most within the §8 five minutes, some later, some never), replies,
 * appointments and closings. Deterministic for a given seed. For the browser tests and scripts/screenshots.mjs.
 */
const OUTCOMES = ['no_answer', 'not_interested', 'wrong_number', 'callback_later', 'opted_out'];

function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `{ days, branches, jobsPerDay, start (ISO day), seed }` → NDJSON text (one record a line). */
export function syntheticLog(options = {}) {
  const {
    days = 14,
    branches = ['BR-001', 'BR-002', 'BR-003'],
    jobsPerDay = 12,
    start = '2026-11-02',
    seed = 7,
  } = options;
  const next = random(seed);
  const lines = [];
  const record = (at, fields, document) =>
    lines.push(
      JSON.stringify({
        v: 1,
        received_at: new Date(at).toISOString(),
        space: 'live',
        status: 202,
        verdict: 'accepted',
        provider_code: 'acme',
        ...fields,
        document,
      }),
    );
  let n = 0;
  for (let day = 0; day < days; day++) {
    const dayStart = Date.parse(`${start}T00:00:00Z`) + day * 86_400_000;
    const jobs = Math.max(1, Math.round(jobsPerDay * (0.6 + next() * 0.8)));
    for (let index = 0; index < jobs; index++) {
      n++;
      const lead = `L${n}`;
      const branch = branches[Math.floor(next() * branches.length)];
      const jobAt = dayStart + Math.floor((8 + next() * 10) * 3_600_000);
      record(
        jobAt,
        { interface: 'A', kind: 'job', event_id: `job-${lead}`, lead_id: lead, branch_code: branch },
        { lead_id: lead, event_id: `job-${lead}`, branch_code: branch },
      );
      const roll = next();
      if (roll < 0.08) continue; // never contacted
      const delay = roll < 0.7 ? 20 + next() * 270 : roll < 0.9 ? 300 + next() * 1200 : 1800 + next() * 7200;
      let at = jobAt + Math.round(delay * 1000);
      let events = 0;
      const event = (type, extra) => {
        events++;
        const eventId = `e-${lead}-${events}`;
        record(
          at + 1500,
          { interface: 'B', kind: 'event', event_id: eventId, event: type, lead_id: lead },
          { event: type, event_id: eventId, occurred_at: new Date(at).toISOString(), lead_id: lead, ...extra },
        );
      };
      event('conversation.message', { direction: 'outbound' });
      if (next() < 0.6) {
        at += Math.round(60_000 + next() * 600_000);
        event('conversation.message', { direction: 'inbound' });
        if (next() < 0.5) {
          at += 120_000;
          event('appointment.booked', { branch_code: branch });
          continue;
        }
      }
      if (next() < 0.7) {
        at += 3_600_000;
        event('job.closed', { outcome: OUTCOMES[Math.floor(next() * OUTCOMES.length)] });
      }
    }
  }
  return lines.join('\n') + '\n';
}
