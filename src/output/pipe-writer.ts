import type { Writable } from 'node:stream';

export interface PipeWriter {
  /** Writes `text`, waiting for 'drain' when the reader is behind (so memory stays flat). False once the reader has gone. */
  write(text: string): Promise<boolean>;
  readonly closed: boolean;
}

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
          stream.off('drain', done);
          stream.off('error', done);
          stream.off('close', done);
          resolve();
        };
        stream.on('drain', done);
        stream.on('error', done);
        stream.on('close', done);
      });
      return !closed;
    },
  };
}
