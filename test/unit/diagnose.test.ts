import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sign } from '../../src/signing/sign.js';
import { verify } from '../../src/signing/verify.js';
import { diagnose, type DiagnosisCode } from '../../src/signing/diagnose.js';

const secret = 'whsec_diagnose_secret';
const other = 'whsec_the_other_direction';
const t = 1_768_469_400;
const sent = Buffer.from('{"event":"job.closed","event_id":"evt_1","text":"¿Mañana?","outcome":"no_answer"}');
const pretty = Buffer.from(JSON.stringify(JSON.parse(sent.toString()), null, 2));

function codesFor(
  signature: string,
  body: Buffer,
  timestamp: string | number = t,
  now = t,
  otherSecrets: string[] = [],
): DiagnosisCode[] {
  const result = verify({ secrets: [secret], signature, timestamp, rawBody: body, now });
  expect(result.valid).toBe(false);
  return diagnose({ secrets: [secret], otherSecrets, signature, timestamp, rawBody: body, result }).map((d) => d.code);
}

describe('diagnose names the usual mistake', () => {
  const cases: [string, () => DiagnosisCode[], DiagnosisCode][] = [
    ['pretty body, signed minified', () => codesFor(sign(secret, t, sent), pretty), 'body_reserialised'],
    ['minified body, signed pretty', () => codesFor(sign(secret, t, pretty), sent), 'body_reserialised'],
    [
      'signed with a trailing newline that was not sent',
      () => codesFor(sign(secret, t, Buffer.concat([sent, Buffer.from('\n')])), sent),
      'trailing_newline_added',
    ],
    [
      'sent with a trailing newline that was not signed',
      () => codesFor(sign(secret, t, sent), Buffer.concat([sent, Buffer.from('\n')])),
      'trailing_newline_removed',
    ],
    [
      'CRLF sent, LF signed',
      () => codesFor(sign(secret, t, Buffer.from('{\n"a":1\n}')), Buffer.from('{\r\n"a":1\r\n}')),
      'line_endings_changed',
    ],
    [
      'signed without the timestamp prefix',
      () => codesFor(`sha256=${hmacOfBodyAlone(secret, sent)}`, sent),
      'missing_timestamp_prefix',
    ],
    ['uppercase hex', () => codesFor(`sha256=${sign(secret, t, sent).slice(7).toUpperCase()}`, sent), 'uppercase_hex'],
    ['no sha256= prefix', () => codesFor(sign(secret, t, sent).slice(7), sent), 'missing_prefix'],
    [
      'timestamp in milliseconds in the header',
      () => codesFor(sign(secret, t * 1000, sent), sent, t * 1000),
      'timestamp_in_milliseconds',
    ],
    [
      'signed with milliseconds, header in seconds',
      () => codesFor(sign(secret, t * 1000, sent), sent, t),
      'timestamp_in_milliseconds',
    ],
    [
      'secret with a trailing newline on the sender',
      () => codesFor(sign(`${secret}\n`, t, sent), sent),
      'secret_whitespace',
    ],
    [
      "the other direction's secret",
      () => codesFor(sign(other, t, sent), sent, t, t, [other]),
      'other_direction_secret',
    ],
    ['clock skew, behind', () => codesFor(sign(secret, t - 400, sent), sent, t - 400), 'clock_skew'],
    ['clock skew, ahead', () => codesFor(sign(secret, t + 400, sent), sent, t + 400), 'clock_skew'],
  ];
  it.each(cases)('%s', (_name, run, code) => {
    expect(run()).toContain(code);
  });

  it('says when nothing usual explains it', () => {
    expect(codesFor(sign('another-secret-entirely', t, sent), sent)).toEqual(['signature_over_other_content']);
  });

  it('reports how far outside the window and which way', () => {
    const signature = sign(secret, t - 412, sent);
    const result = verify({ secrets: [secret], signature, timestamp: t - 412, rawBody: sent, now: t });
    const messages = diagnose({ secrets: [secret], signature, timestamp: t - 412, rawBody: sent, result }).map(
      (d) => d.message,
    );
    expect(messages[0]).toContain('412 s in the past');
    expect(messages[0]).toContain('112 s outside');
    expect(messages).toContain('the signature itself is correct for this body and timestamp; only the time is off');
  });

  it('a compact body ending with a newline, correctly signed but stale, is only clock skew', () => {
    const body = Buffer.from('{"event":"job.closed","event_id":"evt_nl"}\n');
    const signature = sign(secret, t - 1000, body);
    const result = verify({ secrets: [secret], signature, timestamp: t - 1000, rawBody: body, now: t });
    expect(
      new Set(
        diagnose({ secrets: [secret], signature, timestamp: t - 1000, rawBody: body, result }).map((d) => d.code),
      ),
    ).toEqual(new Set(['clock_skew']));
  });

  it('returns nothing for a valid signature', () => {
    const signature = sign(secret, t, sent);
    const result = verify({ secrets: [secret], signature, timestamp: t, rawBody: sent, now: t });
    expect(diagnose({ secrets: [secret], signature, timestamp: t, rawBody: sent, result })).toEqual([]);
  });
});

function hmacOfBodyAlone(key: string, body: Buffer): string {
  return createHmac('sha256', key).update(body).digest('hex');
}
