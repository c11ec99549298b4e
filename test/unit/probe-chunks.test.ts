import { describe, expect, it } from 'vitest';
import { cutInsideCharacter } from '../../src/conformance/probe/session.js';
import { concurrentBreach, ReceiverModel } from '../../src/spec/model/receiver.js';

describe('a chunked body is cut inside a character of several bytes', () => {
  it('at the continuation byte nearest the middle, so that neither piece decodes on its own', () => {
    const body = Buffer.from('{"event_id":"ñandú-€-🙂","x":1}');
    const cut = cutInsideCharacter(body);
    expect((body[cut] as number) & 0xc0).toBe(0x80);
    expect(body.subarray(0, cut).toString('utf8')).toContain('\ufffd');
    expect(Buffer.concat([body.subarray(0, cut), body.subarray(cut)]).equals(body)).toBe(true);
  });

  it('in the middle when every character is one byte, never at either end', () => {
    expect(cutInsideCharacter(Buffer.from('{"a":1}'))).toBe(3);
    expect(cutInsideCharacter(Buffer.from('x'))).toBe(1);
  });
});

describe('an event_id the receiver may have had before cai sent it', () => {
  it('may be answered as a repeat every time: no breach of "none recorded"', () => {
    const model = new ReceiverModel('B');
    model.mayKnow('constructor', 'acme');
    expect(model.knownIds()).toContain('constructor');
  });

  it('a new event_id sent at once, each answered as a repeat, is recorded by none', () => {
    const expectations = [0, 1, 2].map(() => ({ standing: 'new-or-repeat', together: true, terms: [] }) as never);
    const repeat = {
      status: 202,
      body: Buffer.from('{"ok":true,"duplicate":true}'),
      headers: { 'content-type': 'application/json' },
    } as never;
    expect(concurrentBreach('B', expectations, [repeat, repeat, repeat])).toMatch(/none recorded/);
    const maybe = expectations.map(
      (expectation: object) => ({ ...expectation, together: undefined, standing: 'new-or-repeat' }) as never,
    );
    expect(concurrentBreach('B', maybe, [repeat, repeat, repeat])).toBeUndefined();
  });
});

describe('a chunked body cut between characters', () => {
  it('meets at the start of a character nearest the middle: each chunk decodes on its own', async () => {
    const { cutBetweenCharacters } = await import('../../src/conformance/probe/session.js');
    const body = Buffer.from('{"event_id":"ñandú-€-🙂","x":1}');
    const cut = cutBetweenCharacters(body);
    expect((body[cut] as number) & 0xc0).not.toBe(0x80);
    expect(body.subarray(0, cut).toString('utf8') + body.subarray(cut).toString('utf8')).toBe(body.toString('utf8'));
  });
});

describe("a receiver's one choice (OpenPointRule.oneChoice)", () => {
  it('once it accepted a chunked body, refusing another for being chunked is a breach', async () => {
    const model = new ReceiverModel('A');
    const chunked = {
      facts: { open: [{ id: 'chunked', why: 'a body sent chunked' }], faults: [], eventId: 'e-1', identity: undefined },
    } as never;
    const before = model.expect((chunked as { facts: never }).facts);
    expect(JSON.stringify(before.must)).toContain('any4xx');
    model.observe(before, {
      status: 202,
      headers: {},
      body: Buffer.from('{"provider_job_id":"pj_1","assigned_number_e164":"+34600000001"}'),
    });
    const after = model.expect({ ...(chunked as { facts: object }).facts, eventId: 'e-2' } as never);
    expect(after.must).toEqual({ any2xx: true });
  });
});
