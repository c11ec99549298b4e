import type { Writable } from 'node:stream';

export interface PipeWriter {
  /** Writes `text`, waiting for 'drain' when the reader is behind (so memory stays flat). False once the reader has gone. */
  write(text: string): Promise<boolean>;
  readonly closed: boolean;
}

/** What ends a wait for the reader: it caught up, or it has gone. */
const ENDS_OF_WAIT = ['drain', 'error', 'close'] as const;

/**
 * Streaming output for commands that print a lot (`cai sample --count`, `cai validate --ndjson`): when the
 * reader goes away (`| head` → EPIPE), stop producing quietly instead of failing with an unhandled error.
 */
export function pipeWriter(stream: Writable): PipeWriter {
  let closed = false;
  // Stays attached: a write already queued may still fail after the reader has gone.
  stream.on('error', () => {
    closed = true;
  });
  return {
    get closed() {
      return closed;
    },
    async write(text: string): Promise<boolean> {
      if (closed) return false;
      if (stream.write(text) || closed) return !closed;
      await new Promise<void>((resolve) => {
        const done = () => {
          for (const event of ENDS_OF_WAIT) stream.off(event, done);
          resolve();
        };
        for (const event of ENDS_OF_WAIT) stream.on(event, done);
      });
      return !closed;
    },
  };
}
