/**
 * The bounds of cai's own listeners (the sender listener of `--role sender`, the callback
 * listener of `--interface A`): LISTENER_CAPS of src/bounds.ts. Node's server enforces the connection cap and the
 * header time-out (`LISTENER_LIMITS`, given to `listen`); the guard reads each body under the two body time-outs
 * and the shared budget of bytes being read, and admits what a listener records up to its caps. What it refuses
 * is answered (408 for a body cut, 400 for one that cannot be read as HTTP, 503 with Retry-After otherwise), never
 * recorded, and counted for the report.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import { LISTENER_CAPS } from '../bounds.js';
import { BodyWatch } from './body-watch.js';
import { ByteBudget, errorReply, readBody, type BodyResult, type Reply, type ReceiverLimits } from './server.js';

export const LISTENER_LIMITS: ReceiverLimits = {
  maxConnections: LISTENER_CAPS.maxConnections,
  maxBufferedBytes: LISTENER_CAPS.bufferedBytes,
  headersTimeoutMs: LISTENER_CAPS.headersTimeoutMs,
  bodyIdleTimeoutMs: LISTENER_CAPS.bodyIdleTimeoutMs,
  bodyTimeoutMs: LISTENER_CAPS.bodyTimeoutMs,
  // Node's own cut, behind the guard's: the headers, then the body.
  requestTimeoutMs: LISTENER_CAPS.headersTimeoutMs + LISTENER_CAPS.bodyTimeoutMs,
};

export interface GuardCaps {
  idleSocketTimeoutMs: number;
  bodyIdleTimeoutMs: number;
  bodyTimeoutMs: number;
  bufferedBytes: number;
  keptRequests: number;
  keptBodyBytes: number;
}

const RETRY_AFTER = { 'retry-after': '5' };

export class ListenerGuard {
  private readonly watch: BodyWatch;
  private readonly budget: ByteBudget;
  private requests = 0;
  private bytes = 0;
  /** The connections whose body is being read. */
  private readonly reading = new WeakSet<Socket>();
  /** Requests answered but not recorded: a body cut or over the budget, or past what a run records. */
  refused = 0;

  constructor(readonly caps: GuardCaps = LISTENER_CAPS) {
    this.watch = new BodyWatch(caps.bodyIdleTimeoutMs, caps.bodyTimeoutMs);
    this.budget = new ByteBudget(caps.bufferedBytes);
  }

  /** Reads a body within `limit`, the body time-outs and the budget; the budget is given back once it is read. */
  async read(request: IncomingMessage, limit: number): Promise<BodyResult> {
    this.reading.add(request.socket);
    try {
      const result = await readBody(request, limit, { watch: this.watch, budget: this.budget });
      if (result.ok) this.budget.give(result.body.length);
      return result;
    } finally {
      this.reading.delete(request.socket);
    }
  }

  /**
   * The answer to a body the guard cut (`timeout`), had no room for (`busy`) or that could not be read as HTTP
   * (`malformed`); the connection closes after it.
   */
  refusal(reason: 'timeout' | 'busy' | 'malformed'): Reply {
    this.refused += 1;
    const reply =
      reason === 'malformed'
        ? errorReply(400, 'bad_request', 'the body could not be read as HTTP/1.1 (its chunked framing)')
        : reason === 'timeout'
          ? errorReply(
              408,
              'body_timeout',
              `the body did not arrive in time (cai's listener: ${this.caps.bodyIdleTimeoutMs / 1000} s without a byte, ${this.caps.bodyTimeoutMs / 1000} s in all)`,
            )
          : errorReply(503, 'busy', "cai's listener: too many bodies being read at once", {}, RETRY_AFTER);
    return { ...reply, close: true };
  }

  /** Whether a request of `bodyBytes` may be recorded; false (and counted) past the run's caps. */
  admit(bodyBytes: number): boolean {
    if (this.requests + 1 > this.caps.keptRequests || this.bytes + bodyBytes > this.caps.keptBodyBytes) {
      this.refused += 1;
      return false;
    }
    this.requests += 1;
    this.bytes += bodyBytes;
    return true;
  }

  /** The answer to a request past the caps: 503 with Retry-After, unrecorded. */
  overCapacity(): Reply {
    return {
      ...errorReply(
        503,
        'over_capacity',
        `cai conformance listener: this run already recorded ${this.caps.keptRequests} requests or ${this.caps.keptBodyBytes} body bytes`,
        {},
        RETRY_AFTER,
      ),
      close: true,
    };
  }

  /**
   * Closes a connection that sends nothing for idleSocketTimeoutMs: Node's header time-out starts only at a first byte.
   * A body being read is the body time-outs' to cut, with its 408: the idle cut, as long, would take the answer away.
   */
  guardServer(server: Server): void {
    server.setTimeout(this.caps.idleSocketTimeoutMs, (socket) => {
      if (!this.reading.has(socket)) socket.destroy();
    });
  }

  stop(): void {
    this.watch.stop();
  }
}
