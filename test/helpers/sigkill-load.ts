import type { ChildProcess } from 'node:child_process';
import { event, post } from './mock-client.js';

/**
 * Sends new events to a mock from 16 connections and kills it with SIGKILL once `acknowledge` of them were
 * acknowledged (202), mid-load; resolves with the event_ids acknowledged. A request in flight when the process
 * died is not acknowledged, so free to be lost.
 */
export async function acknowledgedUntilKilled(url: string, child: ChildProcess, acknowledge = 150): Promise<string[]> {
  const acknowledged: string[] = [];
  let sent = 0;
  let killed = false;
  const worker = async () => {
    while (!killed && sent < 2000) {
      sent += 1;
      const doc = event();
      try {
        const answer = await post(url, doc);
        if (answer.status === 202) acknowledged.push(doc.event_id as string);
      } catch {
        // In flight when the process died.
      }
      if (acknowledged.length >= acknowledge && !killed) {
        killed = true;
        child.kill('SIGKILL');
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return acknowledged;
}
