/**
 * What the spec leaves open, written down once, each with the words that leave it open. A request that raises one of
 * these questions may get more than one answer from a conforming receiver: `mayRefuseWith` adds refusals to what
 * the rules allow, `mayAccept` lets a refusal go, and `should` is the answer the suite still prefers (judged at the
 * level of a `should`). The rest of the latitude holds for every answer (ANSWER_LATITUDE): it is what the model
 * never judges.
 */

/** What the spec says, or does not say, that leaves a question open, and where. */
export interface OpenClause {
  clause: string;
  text: string;
}

/** Open clauses written one to a line, as `[clause, text]`. */
export function openClauses(rows: readonly (readonly [clause: string, text: string])[]): OpenClause[] {
  return rows.map(([clause, text]) => ({ clause, text }));
}

export interface OpenPointRule extends OpenClause {
  /** Refusals a receiver may give as well: statuses, or any 4xx rejection. */
  mayRefuseWith?: readonly number[] | 'any-4xx';
  /** A receiver may accept the request although a rule would refuse it. */
  mayAccept?: boolean;
  /** The answer still preferred (a `should`), when there is one. */
  should?: 'accept' | 'refuse';
  /**
   * A choice a receiver makes once for every request (how it reads a body, which labels it takes): once it has
   * accepted one such request, refusing another for it is no longer its latitude.
   */
  oneChoice?: true;
}

export const OPEN_POINTS = {
  kilobyte: {
    clause: '§8',
    text: '256 KB may be read as 256 000 or 262 144 bytes: a body between them may be refused with 413',
    mayRefuseWith: [413],
    should: 'accept',
  },
  'job-size': {
    clause: '§8',
    text: '§8 states the 256 KB limit for events only: a provider may refuse a larger job or take it',
    mayRefuseWith: 'any-4xx',
  },
  'source-header': {
    clause: '§4.1',
    text: 'X-CAI-Source is a fixed value identifying the platform; nothing says the provider must check it',
    mayRefuseWith: 'any-4xx',
    mayAccept: true,
    should: 'refuse',
  },
  'signature-spelling': {
    clause: '§5.3',
    text: 'the right MAC spelled otherwise than sha256=<lowercase hex> lets no forged request in; accepting it is not a breach of a must',
    mayRefuseWith: [400, 401],
    mayAccept: true,
    should: 'refuse',
  },
  'window-edge': {
    clause: '§5.5',
    text: "a timestamp on the window's edge, by a clock known only to the second, may be read inside or outside",
    mayRefuseWith: [401],
    mayAccept: true,
  },
  'window-interior': {
    clause: '§5.5',
    text: 'inside the window but far from now: a receiver with a narrower tolerance is defensible',
    mayRefuseWith: [401],
    should: 'accept',
    beyondSeconds: 30,
  },
  'timestamp-leading-zero': {
    clause: '§4.1, §4.2',
    text: 'whether `0<digits>` is an integer as written is open: it may be refused as malformed (400) or verified as sent',
    mayRefuseWith: [400, 401],
    mayAccept: true,
  },
  chunked: {
    clause: 'RFC 9110 §15.5.12',
    text: 'a receiver may require Content-Length (411)',
    mayRefuseWith: [411],
    should: 'accept',
    oneChoice: true,
  },
  'expect-continue': {
    clause: 'RFC 9110 §10.1.1',
    text: 'a receiver may refuse the expectation (417)',
    mayRefuseWith: [417],
    should: 'accept',
    oneChoice: true,
  },
  'byte-order-mark': {
    clause: 'RFC 8259 §8.1',
    text: 'a sender must not add a byte order mark, and a parser may ignore one: a valid document after it may be accepted or refused',
    mayRefuseWith: [400],
    mayAccept: true,
  },
  'deep-nesting': {
    clause: 'RFC 8259 §9, §9.2',
    text: 'an unknown field nested deeper than a parser goes: it may set a limit on nesting, and refuse such a document (400, 413) rather than ignore the field; never with a 5xx',
    mayRefuseWith: [400, 413],
  },
  'unpaired-surrogate': {
    clause: 'RFC 8259 §8.2',
    text: 'a string with an unpaired surrogate escape (\\ud800) is JSON, but what a receiver does with it is unpredictable: it may refuse it (400); never with a 5xx',
    mayRefuseWith: [400],
  },
  'content-type': {
    clause: '§2',
    text: 'a request not labelled application/json: a receiver may refuse it or read it as JSON',
    mayRefuseWith: 'any-4xx',
    mayAccept: true,
  },
  'media-parameters': {
    clause: '§2, RFC 8259 §11',
    text: 'application/json with parameters (charset): they have no effect on compliant recipients, but a receiver may refuse the label',
    mayRefuseWith: [400, 415],
    should: 'accept',
    oneChoice: true,
  },
  'arguable-document': {
    clause: '§2.2, §2.4, §2.7',
    text: 'null for an optional field, a negative attempts or one past 2^53 − 1, an empty identifier (not an event’s lead_id, which §6.3 accepts: B-ACCEPT-012): cai refuses them, but the spec does not force a receiver to',
    mayRefuseWith: [400],
    mayAccept: true,
    should: 'refuse',
  },
  'job-schema': {
    clause: '§4.1',
    text: 'the provider has no error status (§4.1: not shown) and nothing says it must refuse a job the platform should not have sent',
    mayAccept: true,
    should: 'refuse',
    mayRefuseWith: 'any-4xx',
  },
} as const satisfies Record<string, OpenPointRule & { beyondSeconds?: number }>;

export type OpenPointId = keyof typeof OPEN_POINTS;

/** What every answer may do, whatever the request: never judged. */
export const ANSWER_LATITUDE: readonly OpenClause[] = openClauses([
  [
    '§4.2',
    'the body of a first-time 202 (not shown): anything, or nothing, so long as it does not claim the event a duplicate',
  ],
  ['§7', 'the shape of error bodies (not shown): JSON of any shape, text, HTML or nothing'],
  ['§7', 'which status comes first when a request breaks several rules: any of their refusals'],
  ['§6.5', 'any 2xx accepts an event; 202 is the status §4.2 names (a `should`)'],
  ['§7, RFC 9110 §10.2.3', 'Retry-After in seconds or as an HTTP-date'],
  ['§7, §8', 'a 429 at any time: the request cap is not shown (it is waited out and the request sent again)'],
  ['§4.1', "the provider's error statuses (not shown): any 4xx refuses a job"],
  ['§2.3', 'fields of the acknowledgment beyond provider_job_id and assigned_number_e164'],
  ['RFC 9112', 'HTTP/1.0 or 1.1, keep-alive or Connection: close, chunked or sized answers'],
]);
