/**
 * A sender whose every request cai's listener refused (docs/limits.md: "a sender run's report says how many requests
 * it refused") did send: the run stops (nothing to judge, exit 3) saying so, with the count, rather than that the
 * sender sent nothing. The sender here is plain node:net: a chunked body whose framing cannot be read (a chunk size
 * that is no hexadecimal number), which the listener answers 400 and does not record.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CaiError } from '../../src/errors.js';
import { runSenderConformance } from '../../src/conformance/run-sender.js';

const dir = mkdtempSync(join(tmpdir(), 'cai-sender-refused-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SENDER = `
import net from 'node:net';
const url = new URL(process.env.CAI_TARGET_URL);
const socket = net.connect(Number(url.port), url.hostname, () => {
  socket.write('POST ' + url.pathname + url.search + ' HTTP/1.1\\r\\nHost: x\\r\\nContent-Type: application/json\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n');
  setTimeout(() => socket.write('zz\\r\\n{}\\r\\n0\\r\\n\\r\\n'), 20);
});
socket.on('data', () => socket.end());
socket.on('error', () => undefined);
socket.on('close', () => process.exit(0));
`;

/** Headers of 100 KB: the parser refuses them (431) before any handler sees the request. */
const HUGE_HEADERS = `
import net from 'node:net';
const url = new URL(process.env.CAI_TARGET_URL);
const socket = net.connect(Number(url.port), url.hostname, () => {
  socket.write('POST ' + url.pathname + url.search + ' HTTP/1.1\\r\\nHost: x\\r\\nX-Big: ' + 'a'.repeat(100000) + '\\r\\nContent-Length: 2\\r\\n\\r\\n{}');
});
socket.on('data', () => socket.end());
socket.on('error', () => undefined);
socket.on('close', () => process.exit(0));
`;

describe('conformance run --role sender: every request refused', () => {
  it.each([
    ['a body whose chunked framing cannot be read', SENDER],
    ['headers of 100 KB, refused by the parser before any handler', HUGE_HEADERS],
  ])('%s: stops saying how many requests it refused, not that the sender sent nothing', async (name, sender) => {
    const script = join(dir, `sender-${name.length}.mjs`);
    writeFileSync(script, sender);
    let error: unknown;
    try {
      await runSenderConformance({
        interface: 'B',
        identity: 'acme',
        secrets: ['whsec_sender_refused_0123456789'],
        selection: { only: ['BS-HTTP-001'], skip: [], include: [] },
        trigger: `${JSON.stringify(process.execPath)} ${JSON.stringify(script)}`,
        waitMs: 3_000,
        observeMs: 200,
        explore: false,
        reproDir: join(dir, 'repro'),
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(CaiError);
    const { message, code, exitCode } = error as CaiError;
    expect([code, exitCode]).toEqual(['no_attempts', 3]);
    expect(message).toMatch(
      /^the sender sent nothing cai could record: no attempt arrived in 1 scenario \(.*\); 1 request was refused \(400, 408, 431 or 503\) and not recorded/,
    );
  });
});
