/**
 * Deliberate defects (`faults` option, `--break FAULT`): each turns the reference receiver into a realistic
 * broken one, so the conformance suite can prove it catches that defect, and users can see what a
 * conformance failure looks like. One fault is one defect; several may be combined.
 */
export const PLATFORM_FAULTS = {
  'no-dedupe': 'a repeated event_id is accepted again as new (§6.1)',
  'racy-dedupe': 'dedupe checks, awaits, then inserts: concurrent repeats are all accepted (§6.1)',
  'dedupe-before-auth': 'a repeat is answered as a duplicate before its signature is checked (§5, §6.1)',
  'reserialising-verifier': 'the HMAC is checked over JSON.stringify(JSON.parse(body)), not the raw bytes (§5.2)',
  'no-window': 'any timestamp is accepted (§5.5)',
  'past-only-window': 'stale timestamps are rejected but any future timestamp is accepted (§5.5)',
  'no-size-limit': 'bodies over 256 KB are accepted (§8)',
  'reject-unknown-fields': 'fields outside §2.4–§2.7 are rejected with 400 (§9.2)',
  'reject-unknown-lead': 'a lead_id outside --known-lead is rejected with 400 (§6.3)',
  'lax-schema': 'any JSON object with event and event_id is accepted (§2.4–§2.7)',
  '5xx-on-bad-json': 'a body that is not JSON gets 500 instead of 400 (§7)',
  'any-provider': 'any X-CAI-Provider is accepted, verified with the live secrets (§5.6)',
  'duplicate-without-body': 'a repeat is answered 202 with an empty body instead of §2.13',
  'no-retry-after': '429 is answered without Retry-After (§7)',
} as const;
export type PlatformFault = keyof typeof PLATFORM_FAULTS;

export const PROVIDER_FAULTS = {
  'no-dedupe': 'a repeated event_id starts a second job with a new provider_job_id (§2.2)',
  'no-signature-check': 'jobs are accepted whatever their signature (§4.1, §5)',
  'bad-ack': 'assigned_number_e164 in the acknowledgment is not E.164 (§2.3)',
  '5xx-on-bad-json': 'a body that is not JSON gets 500 instead of 400',
  'callback-lead-changed': 'events carry a lead_id other than the job\'s (§2.2)',
  'callback-wrong-secret': 'events are signed with the jobs secret instead of the callback secret (§5.1)',
  'callback-wrong-provider': 'events carry another X-CAI-Provider (§4.2, §5.6)',
  'callback-invalid-event': 'events carry a value outside their enumeration (§2.10)',
} as const;
export type ProviderFault = keyof typeof PROVIDER_FAULTS;

/** Checks fault names; returns the unknown ones. */
export function unknownFaults(names: readonly string[], known: Record<string, string>): string[] {
  return names.filter((name) => !Object.hasOwn(known, name));
}
