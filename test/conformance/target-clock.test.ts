/**
 * A receiver's `Date` sets the clock the probes are timed by (§5.5), within a day of cai's: a `Date` further off
 * (the year 275760, 1970) is no clock, and taking it would sign every request with a timestamp decades away, which a
 * correct receiver refuses, and the checks would blame it for cai's mistiming. The receiver here is plain Node: it
 * accepts every request and writes the `Date` it is given.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { runConformance } from '../../src/conformance/run-receiver.js';

function startReceiver(date: string) {
  const timestamps: number[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const stamp = request.headers['x-cai-timestamp'];
    if (typeof stamp === 'string') timestamps.push(Number(stamp));
    request.resume();
    request.on('end', () => {
      response.writeHead(202, { 'content-type': 'application/json', date });
      response.end('{"ok":true}');
    });
  });
  return new Promise<{ url: string; timestamps: number[]; close(): Promise<void> }>((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}/events`,
        timestamps,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}

describe("conformance run: a receiver's Date far from any clock", () => {
  for (const date of ['Sat, 13 Sep 275760 00:00:00 GMT', 'Thu, 01 Jan 1970 00:00:00 GMT']) {
    it(`is not taken as its clock: ${date}`, async () => {
      const receiver = await startReceiver(date);
      try {
        const report = await runConformance({
          interface: 'B',
          target: receiver.url,
          identity: 'acme',
          secrets: ['whsec_target_clock_0123456789'],
          selection: { only: ['B-ACCEPT-001', 'B-CLOCK-001'], skip: [], include: [] },
          explore: false,
        });
        const verdicts = Object.fromEntries(report.checks.map((check) => [check.id, check.verdict]));
        expect(verdicts).toEqual({ 'B-ACCEPT-001': 'passed', 'B-CLOCK-001': 'warning' });
        expect(report.clock).toMatchObject({ offsetSeconds: null, dateHeader: date });
        const now = Date.now() / 1000;
        expect(receiver.timestamps.length).toBeGreaterThan(0);
        for (const stamp of receiver.timestamps) expect(Math.abs(stamp - now)).toBeLessThan(3_600);
      } finally {
        await receiver.close();
      }
    });
  }
});
