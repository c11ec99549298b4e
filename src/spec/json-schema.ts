/**
 * JSON Schema (2020-12) and OpenAPI 3.1 documents generated from the zod schemas of schemas.ts, so the
 * published contract and `cai validate` cannot drift apart. Formats are expressed as `pattern`s (see
 * formats.ts), which any JSON Schema validator applies, rather than `format`, which most only annotate.
 * What JSON Schema cannot say is not in the schemas: the 256 KB body limit (§8, a property of the bytes),
 * the branch catalog (per deployment), and the warnings of `cai validate`.
 */
import * as z from 'zod';
import {
  CONTACT_JOBS_PATH,
  EVENT_TYPES,
  HeaderNames,
  MAX_BODY_BYTES,
  SIGNATURE_WINDOW_SECONDS,
  SPEC_VERSION,
  type EventType,
} from './constants.js';
import { ContactJob, DuplicateAck, Event, EventSchemas, JobAck } from './schemas.js';
import { STATUS_TABLE, type StatusRule } from './statuses.js';

export const SCHEMA_TARGETS = ['job', 'ack', 'duplicate-ack', 'event', ...EVENT_TYPES, 'all'] as const;
export type SchemaTarget = (typeof SCHEMA_TARGETS)[number];

type JsonObject = Record<string, unknown>;

const ID_BASE = 'https://cai.invalid/schemas/v1.0/';

const NAMED: { name: string; target: Exclude<SchemaTarget, 'all'>; schema: z.ZodType }[] = [
  { name: 'ContactJob', target: 'job', schema: ContactJob },
  { name: 'JobAck', target: 'ack', schema: JobAck },
  { name: 'DuplicateAck', target: 'duplicate-ack', schema: DuplicateAck },
  { name: 'Event', target: 'event', schema: Event },
  ...EVENT_TYPES.map((type) => ({
    name: eventSchemaName(type),
    target: type,
    schema: EventSchemas[type] as z.ZodType,
  })),
];

function eventSchemaName(type: EventType): string {
  return (
    type
      .split(/[._]/)
      .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
      .join('') + 'Event'
  );
}

function convert(schema: z.ZodType): JsonObject {
  // No refinements exist in schemas.ts, so nothing is unrepresentable: fail loudly if one creeps in.
  return z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'throw' }) as JsonObject;
}

function withoutDialect(schema: JsonObject): JsonObject {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

const cache = new Map<SchemaTarget, JsonObject>();

/** The JSON Schema (2020-12) of one document kind, one event type, or `all` of them (under `$defs`). */
export function jsonSchemaFor(target: SchemaTarget): JsonObject {
  const cached = cache.get(target);
  if (cached) return cached;
  let result: JsonObject;
  if (target === 'all') {
    const defs = Object.fromEntries(NAMED.map(({ name, schema }) => [name, withoutDialect(convert(schema))]));
    result = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: `${ID_BASE}all.json`,
      title: `CAI interface v${SPEC_VERSION}: every document`,
      description:
        'Any document of the interface: a contact job, a job acknowledgment, a duplicate acknowledgment or an event. Each is also under $defs.',
      anyOf: ['ContactJob', 'JobAck', 'DuplicateAck', 'Event'].map((name) => ({ $ref: `#/$defs/${name}` })),
      $defs: defs,
    };
  } else {
    const named = NAMED.find((entry) => entry.target === target);
    if (!named) throw new Error(`no schema for ${target}`);
    const { $schema, ...rest } = convert(named.schema);
    result = { $schema, $id: `${ID_BASE}${target}.json`, title: named.name, ...rest };
  }
  cache.set(target, result);
  return result;
}

const signatureHeaders = (party: 'source' | 'provider'): JsonObject[] => [
  {
    name: party === 'source' ? HeaderNames.source : HeaderNames.provider,
    in: 'header',
    required: true,
    description:
      party === 'source'
        ? 'Fixed value identifying the platform as sender (§4.1)'
        : 'The provider_code; identifies the credential (§4.2, §5.6)',
    schema: { type: 'string', minLength: 1 },
  },
  {
    name: HeaderNames.signature,
    in: 'header',
    required: true,
    description:
      'sha256= and the lowercase hex HMAC-SHA256 of `timestamp + "." + raw body`, with the secret of this direction (§5.1–5.3)',
    schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
  },
  {
    name: HeaderNames.timestamp,
    in: 'header',
    required: true,
    description: `Unix seconds; requests outside ±${SIGNATURE_WINDOW_SECONDS} s are rejected (§5.4, §5.5)`,
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
];

/** A §7 row as one sentence: the condition, then the client action. */
function statusText(status: StatusRule['status']): string {
  const rule = STATUS_TABLE.find((row) => row.status === status);
  return rule ? `${rule.condition}. ${rule.clientAction}` : '';
}

const problem = (description: string): JsonObject => ({
  description: `${description} The shape of error bodies is not shown in the spec (§7).`,
});

let openApiCache: { generatedBy: string; document: JsonObject } | undefined;

/** Where the document says it comes from, unless its caller says (the CLI names its command). */
const GENERATED_BY = 'Generated by cai-toolkit from the same schemas `cai validate` uses.';

/** An OpenAPI 3.1 document of both interfaces (§4): paths, headers, bodies, every status of §7. */
export function openApiDocument(generatedBy = GENERATED_BY): JsonObject {
  if (openApiCache?.generatedBy === generatedBy) return openApiCache.document;
  const components = Object.fromEntries(NAMED.map(({ name, schema }) => [name, withoutDialect(convert(schema))]));
  const eventsPost: JsonObject = {
    operationId: 'postEvent',
    summary: 'Interface B: the provider returns one event (§4.2)',
    description: `One event per request. Body at most 256 KB (${MAX_BODY_BYTES} bytes, §8). Unknown fields are ignored (§9.2). A lead_id the platform does not recognise is not an error (§6.3).`,
    tags: ['Interface B'],
    parameters: [...signatureHeaders('provider')],
    requestBody: {
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Event' } } },
    },
    responses: {
      '202': {
        description:
          'Event accepted, or discarded as a duplicate (§7). A duplicate is answered with the body of §2.13; the body of a first-time 202 is not shown.',
        // A first-time body is "not shown" (§4.2): any JSON is allowed beside the §2.13 duplicate body.
        content: { 'application/json': { schema: { anyOf: [{ $ref: '#/components/schemas/DuplicateAck' }, {}] } } },
      },
      '400': problem(statusText('400')),
      '401': problem(statusText('401')),
      '413': problem(statusText('413')),
      '429': {
        description: `${statusText('429')} The cap is not shown (§8).`,
        headers: {
          'Retry-After': { required: true, schema: { type: 'string' }, description: 'Seconds to wait before retrying' },
        },
      },
      '5XX': problem(statusText('5xx')),
    },
  };
  const document: JsonObject = {
    openapi: '3.1.0',
    info: {
      title: 'CAI push interface',
      version: SPEC_VERSION,
      description:
        'Interface A: the platform delivers contact jobs to the provider. Interface B: the provider returns events to the platform. ' +
        'Both are HTTPS POST (TLS 1.2+, §5.8), JSON in UTF-8, signed with HMAC-SHA256 over `timestamp.raw_body` (§5). ' +
        generatedBy,
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    tags: [
      { name: 'Interface A', description: 'platform to provider: contact jobs' },
      { name: 'Interface B', description: 'provider to platform: events' },
    ],
    paths: {
      [CONTACT_JOBS_PATH]: {
        servers: [
          {
            url: '{provider_endpoint}',
            description: "The provider's base address (private annex)",
            variables: { provider_endpoint: { default: 'https://provider.example' } },
          },
        ],
        post: {
          operationId: 'postContactJob',
          summary: 'Interface A: the platform delivers one contact job (§4.1)',
          description:
            'Sent at capture time, one per contact. A repeated event_id must be ignored by the provider (§2.2). The error statuses of this endpoint are not shown (§4.1).',
          tags: ['Interface A'],
          parameters: signatureHeaders('source'),
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ContactJob' } } },
          },
          responses: {
            '202': {
              description: 'Job accepted',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/JobAck' } } },
            },
          },
          callbacks: {
            events: { '{$request.body#/callback_url}': { post: eventsPost } },
          },
        },
      },
      '/': {
        summary: 'Interface B events endpoint',
        description: 'The single events address, delivered in callback_url of every job (§4.2).',
        servers: [
          {
            url: '{events_url}',
            description: 'The events address (private annex)',
            variables: { events_url: { default: 'https://platform.example/cai/events' } },
          },
        ],
        post: eventsPost,
      },
    },
    components: { schemas: components },
  };
  openApiCache = { generatedBy, document };
  return document;
}
