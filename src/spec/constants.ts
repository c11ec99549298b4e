/**
 * Numbers, names and enumerations of the interface spec v1.0, as plain data.
 * Kept free of zod so that `cai sign` / `cai verify` can import them without loading a schema library.
 */

export const SPEC_VERSION = '1.0';

/** §4.1 / §4.2 header names. */
export const Headers = {
  contentType: 'content-type',
  signature: 'x-cai-signature',
  timestamp: 'x-cai-timestamp',
  source: 'x-cai-source',
  provider: 'x-cai-provider',
  retryAfter: 'retry-after',
} as const;

/** Display spelling of the headers, as the spec writes them. */
export const HeaderNames = {
  signature: 'X-CAI-Signature',
  timestamp: 'X-CAI-Timestamp',
  source: 'X-CAI-Source',
  provider: 'X-CAI-Provider',
} as const;

/** §4.1: Interface A path, appended to `{provider_endpoint}`. */
export const CONTACT_JOBS_PATH = '/contact-jobs';

/** §5.3: the header value is `sha256=` followed by lowercase hex. */
export const SIGNATURE_PREFIX = 'sha256=';

/** §5.5 and §8: 300 s validity window, both directions. */
export const SIGNATURE_WINDOW_SECONDS = 300;

/**
 * §7 and §8: "256 KB maximum, over it 413". The spec does not say whether KB is 1000 or 1024 bytes:
 * receivers in this toolkit reject above 262 144 bytes (so nothing the spec allows is refused), and
 * senders and conformance checks treat at most 256 000 bytes as surely within the limit.
 */
export const MAX_BODY_BYTES = 256 * 1024;
export const SURELY_ALLOWED_BODY_BYTES = 256 * 1000;

/** §2.4, §6.1, §8: `event_id` at most 120 characters. */
export const MAX_EVENT_ID_LENGTH = 120;

/** §7, §8: retry with exponential backoff for up to 24 hours. */
export const RETRY_PERIOD_SECONDS = 24 * 60 * 60;

/** §8 service-level targets (reference values, adjusted per deployment): first contact within 5 minutes of the job. */
export const FIRST_CONTACT_TARGET_SECONDS = 5 * 60;
/** §8: message delivery within 60 seconds of each message. */
export const MESSAGE_DELIVERY_TARGET_SECONDS = 60;

/** §6: the event types of Interface B, each described once in event-types.ts. */
export { EVENT_TYPES, type EventType } from './event-types.js';

/** §2.8 */
export const ORIGIN_CHANNELS = [
  'landing_form',
  'contact_form',
  'webchat',
  'whatsapp_button',
  'phone',
  'referral',
] as const;
/** §2.9 */
export const BRIEF_INTENTS = [
  'book_appointment',
  'pricing_information',
  'service_information',
  'reschedule',
  'follow_up',
  'other',
] as const;
/** §2.10 */
export const EVENT_CHANNELS = ['whatsapp', 'webchat', 'sms', 'phone', 'email'] as const;
export const DIRECTIONS = ['inbound', 'outbound'] as const;
/** §2.11 */
export const AUTHORS = ['agent', 'contact', 'human'] as const;
/** §2.12 */
export const OUTCOMES = ['no_answer', 'not_interested', 'wrong_number', 'callback_later', 'opted_out'] as const;

/** The two interfaces of §1. */
export const INTERFACES = ['A', 'B'] as const;
export type InterfaceId = (typeof INTERFACES)[number];
