/**
 * Repeats, as `cai load` and its exported Artillery processor send and judge them (one module, bundled into the
 * processor by scripts/build-processor.mjs): the share of requests that repeat an accepted document, kept exactly,
 * and the documents they repeat (whether an answer recognised one is src/spec/acknowledgment.ts's recogniseRepeat).
 */

/** A document accepted as new: its text (the bytes first sent and signed) and, for a job, the acknowledgment's id. */
export interface Accepted {
  body: string;
  providerJobId?: string;
}

/**
 * The documents accepted as new, the most recent `size` of them, and the share of requests that repeat one. The share
 * is kept exactly, not drawn by chance: every request adds it to a credit, and a whole credit is a repeat (of a
 * document drawn at random among those kept). The credit starts one share short of a whole, so the first repeat is
 * due at once and comes with the first request after a document was accepted: a short run has its repeats too.
 */
export class RepeatPool {
  private readonly entries: Accepted[] = [];
  private next = 0;
  private credit: number;

  constructor(
    private readonly size: number,
    private readonly share: number,
    private readonly random: () => number = Math.random,
  ) {
    this.credit = share > 0 ? 1 - share : 0;
  }

  /** For the next request: a document to repeat, when a repeat is due and one was accepted; else undefined. */
  due(): Accepted | undefined {
    this.credit += this.share;
    if (this.credit < 1 - 1e-9 || this.entries.length === 0) return undefined;
    this.credit -= 1;
    return this.entries[Math.floor(this.random() * this.entries.length)];
  }

  remember(entry: Accepted): void {
    if (this.entries.length < this.size) this.entries.push(entry);
    else this.entries[this.next++ % this.size] = entry;
  }
}
