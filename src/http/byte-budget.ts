/**
 * Request-body bytes held in memory by all requests together. A body takes its bytes as they arrive and gives
 * them back when its request is done, so a flood of large or slow bodies cannot hold more than `limit`.
 */
export class ByteBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  /** Takes `bytes` when they fit under the limit; false (nothing taken) when they do not. */
  take(bytes: number): boolean {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }

  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
}
