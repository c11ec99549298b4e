import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { postExpectingContinue } from '../../src/conformance/probe/expect-continue.js';
import {
  ATTEMPTS_MISSES,
  CHANNEL_MISSES,
  e164Misses,
  EVENT_ENUMERATIONS,
  EVENT_ID_PAST_LIMIT,
  JOB_ENUMERATIONS,
} from '../../src/conformance/probe/mutations-document.js';
import { identityVariants } from '../../src/conformance/probe/mutations.js';
import { AT_THE_LIMIT, OVER_THE_LIMIT } from '../../src/conformance/probe/mutations.js';
import { DIGEST, DIGEST_LENGTH, SIGNATURE_SPELLING, SIGNED_STRING } from '../../src/conformance/probe/mutations.js';
import {
  TIMESTAMP_FORM,
  WINDOW_FUTURE_INSIDE,
  WINDOW_FUTURE_OUTSIDE,
  WINDOW_PAST_INSIDE,
  WINDOW_PAST_OUTSIDE,
  WINDOW_SOURCE,
} from '../../src/conformance/probe/mutations.js';
import {
  damagedSignature,
  otherSignedString,
  respelledSignature,
  writtenTimestamp,
} from '../../src/conformance/probe/signature-forms.js';
import { untilSecondFraction } from '../../src/conformance/probe/session.js';
import { sign } from '../../src/signing/sign.js';
import { clauseById } from '../../src/spec/clauses.js';

const CATALOGUE = [
  SIGNED_STRING,
  DIGEST,
  DIGEST_LENGTH,
  SIGNATURE_SPELLING,
  TIMESTAMP_FORM,
  WINDOW_PAST_OUTSIDE,
  WINDOW_FUTURE_OUTSIDE,
  WINDOW_PAST_INSIDE,
  WINDOW_FUTURE_INSIDE,
  WINDOW_SOURCE,
  OVER_THE_LIMIT,
  AT_THE_LIMIT,
  CHANNEL_MISSES,
  ATTEMPTS_MISSES,
  EVENT_ID_PAST_LIMIT,
  EVENT_ENUMERATIONS,
  JOB_ENUMERATIONS,
  e164Misses('from_number_e164', ['§2.1-1']),
  identityVariants('X-CAI-Provider', ['§5.6-1'], 'authentication'),
].flat();

describe('the mutation catalogue', () => {
  it('derives every mutation from clauses of the spec, each named once within its rule', () => {
    for (const mutation of CATALOGUE) {
      expect(mutation.clauses.length, mutation.name).toBeGreaterThan(0);
      for (const clause of mutation.clauses) expect(clauseById(clause), `${mutation.name}: ${clause}`).toBeDefined();
    }
    for (const rule of [SIGNED_STRING, SIGNATURE_SPELLING, TIMESTAMP_FORM, CHANNEL_MISSES])
      expect(new Set(rule.map((mutation) => mutation.name)).size).toBe(rule.length);
  });

  it('changes the valid signature in one part and never leaves it valid', () => {
    const body = Buffer.from('{"event":"conversation.message"}');
    const valid = sign('whsec_test', '1767225600', body);
    expect(respelledSignature(valid, 'upper-case-hex')).toBe(`sha256=${valid.slice(7).toUpperCase()}`);
    expect(respelledSignature(valid, 'no-prefix')).toBe(valid.slice(7));
    expect(respelledSignature(valid, 'two-headers')).toEqual([damagedSignature(valid, 'last-digit'), valid]);
    for (const damage of ['last-digit', 'first-digit', 'middle-digit'] as const) {
      const damaged = damagedSignature(valid, damage);
      expect(damaged).toHaveLength(valid.length);
      expect(damaged).not.toBe(valid);
    }
    expect(damagedSignature(valid, 'first-half')).toBe(valid.slice(0, 7 + 32));
    expect(otherSignedString('no-dot', '17', body).toString()).toBe(`17${body.toString()}`);
    expect(otherSignedString('body-first', '17', body).toString()).toBe(`${body.toString()}.17`);
  });

  it('writes the same instant in notations that are not an integer of seconds', () => {
    expect(writtenTimestamp('plus-sign', 1767225600)).toBe('+1767225600');
    expect(writtenTimestamp('decimal', 1767225600)).toBe('1767225600.0');
    expect(writtenTimestamp('exponent', 1767225600)).toBe('1.7672256e9');
    expect(Number(writtenTimestamp('exponent', 1767225601))).toBe(1767225601);
    expect(writtenTimestamp('hex', 1767225600)).toBe('0x6955b900');
  });

  it('waits for the chosen fraction of the second', () => {
    expect(untilSecondFraction(0.6, 1_000_100)).toBe(500);
    expect(untilSecondFraction(0.05, 1_000_900)).toBe(150);
    expect(untilSecondFraction(0.5, 1_000_500)).toBe(0);
  });
});

describe('Expect: 100-continue', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  async function listen(onContinue: 'continue' | 'refuse'): Promise<string> {
    server = createServer((request, response) => {
      let bytes = 0;
      request.on('data', (chunk: Buffer) => (bytes += chunk.length));
      request.on('end', () =>
        response.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ bytes })),
      );
    });
    server.on('checkContinue', (request, response) => {
      if (onContinue === 'refuse') {
        response.writeHead(413, { connection: 'close' }).end('too large');
        return;
      }
      response.writeContinue();
      server?.emit('request', request, response);
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server?.address() as AddressInfo).port}/events`;
  }

  const post = (url: string) =>
    postExpectingContinue({
      url,
      headers: { 'content-type': 'application/json' },
      body: Buffer.alloc(1000, 'a'),
      timeoutMs: 5000,
      signal: new AbortController().signal,
      continueWaitMs: 1000,
    });

  it('sends the body once the receiver answers 100 Continue', async () => {
    const answer = await post(await listen('continue'));
    expect(answer.status).toBe(202);
    expect(JSON.parse(answer.body.toString())).toEqual({ bytes: 1000 });
    expect(answer.bodySent).toBe(true);
  });

  it('takes an answer given before the body, and never sends it', async () => {
    const answer = await post(await listen('refuse'));
    expect(answer.status).toBe(413);
    expect(answer.bodySent).toBe(false);
  });
});
