import { usageError } from '../errors.js';

/**
 * Deliberate defects (`faults` option, `--break FAULT`): each turns the reference receiver into a realistic
 * broken one, so the conformance suite can prove it catches that defect, and users can see what a
 * conformance failure looks like. One fault is one defect; several may be combined. Some defects are only a
 * departure from what the spec prefers (an answer of 200 rather than 202): the check that catches them is a
 * `should`, and the run warns rather than fails.
 */

/** Defects both reference receivers can be given: the edges of §2.1, §5.2–§5.4 and §6.1/§2.2 both interfaces share. */
export const RECEIVER_FAULTS = {
  'dedupe-case-insensitive':
    'event_ids are compared ignoring case (a case-insensitive collation): an id that differs only in case is taken for a repeat (§6.1, §2.2)',
  'dedupe-normalises-unicode':
    'event_ids are NFC-normalised before they are compared: an NFD id is taken for a repeat of its NFC spelling (§6.1, §2.2)',
  'dedupe-trims-event-id':
    'event_ids are trimmed before they are compared: an id with a trailing space is taken for a repeat (§6.1, §2.2)',
  'signs-parsed-timestamp':
    'the HMAC is checked over the timestamp parsed as a number, not the header as sent: a leading zero passes unsigned (§5.2, §5.4)',
  'date-time-without-fraction': 'date-times with fractional seconds are refused (§2.1)',
  'date-time-numeric-offset-only': 'date-times in UTC written with Z are refused: only ±hh:mm is read (§2.1)',
  'date-time-positive-offset-only': 'date-times with a negative offset are refused (§2.1)',
  'e164-max-14-digits': 'E.164 numbers of 15 digits are refused (§2.1)',
  'e164-min-10-digits': 'E.164 numbers of fewer than 10 digits are refused (§2.1)',
  'date-time-whole-hour-offset':
    'date-times whose offset is not a whole hour (India +05:30, Nepal +05:45) are refused (§2.1)',
  'date-time-fraction-max-6': 'date-times with more than six fractional digits (.NET writes seven) are refused (§2.1)',
  'requires-content-length':
    'a body sent chunked, without Content-Length, is refused with 411 (a warning: HTTP allows it)',
  'strict-content-type':
    'any Content-Type but exactly application/json (e.g. with a charset) is refused with 415 (a warning)',
  'signature-any-case':
    'the signature header is lowercased before it is compared: SHA256= and upper-case hex pass (§5.3; a warning)',
  'signature-without-dot': 'the HMAC over the timestamp and the body joined without the dot passes too (§5.2)',
  'signature-compares-40-digits': 'only the first 40 of the 64 hex digits of the signature are compared (§5.3)',
  'window-301-seconds': 'the window is 301 s wide on each side, not 300 (§5.5)',
  'window-from-date-header':
    'a request with a Date header has its window measured from that header, not X-CAI-Timestamp (§5.4)',
  'enum-case-folded':
    'enumeration values are trimmed and lowercased before validation: WhatsApp and " agent" pass (§2.8–§2.12)',
  'e164-plus-optional': 'a telephone number of digits without its + passes as E.164 (§2.1)',
  'dedupe-expires': 'an event_id is forgotten 1 s after it was first recorded: a later repeat is new (§6.1, §2.2)',
  'identity-case-folded':
    'X-CAI-Provider (B) and X-CAI-Source (A) are lowercased before they are looked up (§5.6, §4.1)',
} as const;

export const PLATFORM_FAULTS = {
  'no-dedupe': 'a repeated event_id is accepted again as new (§6.1)',
  'racy-dedupe': 'dedupe checks, awaits, then inserts: concurrent repeats are all accepted (§6.1)',
  'dedupe-before-auth': 'a repeat is answered as a duplicate before its signature is checked (§5, §6.1)',
  'reserialising-verifier': 'the HMAC is checked over JSON.stringify(JSON.parse(body)), not the raw bytes (§5.2)',
  'no-window': 'any timestamp is accepted (§5.5)',
  'past-only-window': 'stale timestamps are rejected but any future timestamp is accepted (§5.5)',
  'no-size-limit': 'bodies over 256 KB are accepted (§8)',
  'reject-unknown-fields': 'fields outside §2.4–§2.7 are rejected with 400 (§9.2)',
  'reject-unknown-lead': 'a lead_id the platform does not know is rejected with 400 (§6.3)',
  'lax-schema': 'any JSON object with event and event_id is accepted (§2.4–§2.7)',
  '5xx-on-bad-json': 'a body that is not JSON gets 500 instead of 400 (§7)',
  'any-provider': 'any X-CAI-Provider is accepted, verified with the live secrets (§5.6)',
  'duplicate-without-body': 'a repeat is answered 202 with an empty body instead of §2.13',
  'no-retry-after': '429 is answered without Retry-After (§7)',
  'accepted-200':
    'an accepted event is answered 200 rather than 202 (§4.2; a warning: §6.5 counts any 2xx as accepted)',
  'event-id-utf16-length':
    'the event_id limit counts UTF-16 units, not characters: 120 characters outside the BMP are refused (§8)',
  'size-in-characters':
    'the body limit counts characters of the decoded text, not bytes: multi-byte text over 256 KB is accepted (§8)',
  'records-before-validation':
    'the event_id of an event refused 400 is recorded: its corrected retry is answered as a duplicate (§6.1)',
  'size-declared-only':
    'the body limit is applied to Content-Length only: a chunked body of any size is read and accepted (§8)',
  'integer-strings': 'a string of digits passes as an integer: attempts "3" is accepted (§2.7)',
  ...RECEIVER_FAULTS,
} as const;

export const PROVIDER_FAULTS = {
  'no-dedupe': 'a repeated event_id starts a second job with a new provider_job_id (§2.2)',
  'no-signature-check': 'jobs are accepted whatever their signature (§4.1, §5)',
  'bad-ack': 'assigned_number_e164 in the acknowledgment is not E.164 (§2.3)',
  '5xx-on-bad-json': 'a body that is not JSON gets 500 instead of 400',
  'callback-lead-changed': "events carry a lead_id other than the job's (§2.2)",
  'callback-wrong-secret': 'events are signed with the jobs secret instead of the callback secret (§5.1)',
  'callback-wrong-provider': 'events carry another X-CAI-Provider (§4.2, §5.6)',
  'callback-invalid-event': 'events carry a value outside their enumeration (§2.10)',
  'callback-lead-id-normalised': "events carry the job's lead_id lowercased (§2.2)",
  'callback-wrong-job-id': 'messages carry a provider_job_id other than the acknowledged one (§2.3; a warning)',
  'callback-wrong-number':
    'outbound messages come from another number than the acknowledged assigned_number_e164 (§2.3; a warning)',
  'callback-no-ending': 'conversations stop before their appointment or job.closed event (§3; a warning)',
  'callback-no-retry-on-5xx': 'an event answered 5xx is not sent again (§7)',
  'callback-no-retry-on-429': 'an event answered 429 is not sent again (§7)',
  'callback-ignores-retry-after': 'an event answered 429 is sent again after the backoff, not after Retry-After (§7)',
  'callback-retries-400': 'an event answered 400 is sent again, like a 5xx (§7)',
  'callback-retry-stale-signature': "a retry re-serialises the event and keeps the first attempt's signature (§5.2)",
  'callback-job-timestamp':
    "events are signed with the job's X-CAI-Timestamp, not the time they are sent: outside the window once the conversation outlasts it (§5.5)",
  'repeat-restarts-conversation':
    'a repeated event_id gets the same acknowledgment but starts the conversation again (§2.2)',
  'verifies-with-both-secrets': 'jobs signed with the events secret are accepted too (§5.1)',
  'language-two-part-only': 'contact.language must be ll or ll-CC: a script subtag (zh-Hant-TW) is refused (§2.1)',
  ...RECEIVER_FAULTS,
} as const;

export type ReceiverFault = keyof typeof RECEIVER_FAULTS;
export type PlatformFault = keyof typeof PLATFORM_FAULTS;
export type ProviderFault = keyof typeof PROVIDER_FAULTS;

/** The faults given to one receiver (`platform`, `provider`), each one it knows: an unknown one is a usage error. */
export function checkFaults<Fault extends string>(
  names: readonly string[] | undefined,
  known: Record<Fault, string>,
  receiver: string,
): Set<Fault> {
  const bad = (names ?? []).filter((name) => !Object.hasOwn(known, name));
  if (bad.length > 0)
    throw usageError(
      'unknown_fault',
      `unknown ${receiver} fault: ${bad.join(', ')}`,
      `choose from: ${Object.keys(known).join(', ')}`,
    );
  return new Set(names as Fault[] | undefined);
}
