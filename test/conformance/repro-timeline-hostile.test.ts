/**
 * A sender's reproductions through the built binary, against a hostile sender (plain node:net, not cai): the stage's
 * `timeline.txt` shows the event_id and X-CAI-Timestamp it chose escaped, one line per attempt, so a `cat` of the
 * file moves no cursor and shows no line the sender forged.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-repro-timeline-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One attempt, written byte by byte: an event_id with ESC, BEL, C1, bidi, U+2028 and a forged line; a timestamp with C1 and bidi (obs-text). */
const SENDER = `
import { connect } from 'node:net';
const target = new URL(process.env.CAI_TARGET_URL);
const forged = '\\n+1 ms #9 POST /x event_id forged, X-CAI-Timestamp 1, 2 bytes → 202';
const body = Buffer.from(JSON.stringify({ event: 'conversation.message', event_id: 'id\\u001b[2J\\u0007\\u009b\\u202e\\u2028' + forged }));
const head = 'POST ' + target.pathname + ' HTTP/1.1\\r\\nHost: ' + target.host + '\\r\\nContent-Type: application/json\\r\\n' +
  'X-CAI-Provider: acme\\r\\nX-CAI-Timestamp: 1\\x9b31m\\xe2\\x80\\xae\\r\\nX-CAI-Signature: sha256=00\\r\\n' +
  'Content-Length: ' + body.length + '\\r\\nConnection: close\\r\\n\\r\\n';
const socket = connect(Number(target.port), target.hostname, () => socket.end(Buffer.concat([Buffer.from(head, 'latin1'), body])));
socket.resume();
socket.on('close', () => process.exit(0));
`;

describe('a hostile sender in a stage timeline', () => {
  it('the event_id and X-CAI-Timestamp it sent are escaped: one line per attempt, nothing a terminal acts on', async () => {
    const sender = join(dir, 'hostile-sender.mjs');
    writeFileSync(sender, SENDER);
    const repro = join(dir, 'repro');
    const result = await spawnCli(
      [
        'conformance',
        'run',
        '--interface',
        'B',
        '--role',
        'sender',
        '--provider',
        'acme',
        '--only',
        'BS-SIG-002',
        '--observe',
        '500ms',
        '--repro-dir',
        repro,
        '--trigger',
        `'${process.execPath}' '${sender}'`,
      ],
      { env: { CAI_SECRET: 'repro-timeline-secret' } },
    );
    expect(result.code, result.stdout + result.stderr).toBe(1);
    const text = readFileSync(join(repro, 'accept', 'timeline.txt'), 'utf8');
    const lines = text.split('\n');
    expect(lines, text).toHaveLength(3);
    expect(text.replace(/\n/g, '')).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/);
    expect(lines[1]).toMatch(
      /^\+\d+(\.\d+)? m?s #1 POST \/accept\/events event_id id\\x1b\[2J\\x07\\u009b\\u202e\\u2028\\n\+1 ms #9 POST /,
    );
    expect(lines[1]).toContain(', X-CAI-Timestamp 1\\u009b31mâ\\u0080®, ');
  }, 60_000);
});
