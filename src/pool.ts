/**
 * The one worker pool: `size` lanes working through `items` in order, each taking the next item when its last is
 * done, until every item is taken or the run is stopped (`stopped()` says so, or the signal is aborted). An item
 * taken is always finished: stopping only keeps the next ones from being taken. `items` may be lazy (a generator):
 * an item is made only when a lane takes it. Used by the batch send and, with the conformance engine, by its checks,
 * generated documents and conversations, and sender scenarios.
 */
export async function pool<T>(
  items: Iterable<T>,
  size: number,
  worker: (item: T, index: number) => Promise<void>,
  stopped: (() => boolean) | AbortSignal = () => false,
): Promise<void> {
  const halted = typeof stopped === 'function' ? stopped : () => stopped.aborted;
  const next = items[Symbol.iterator]();
  let taken = 0;
  const lane = async () => {
    while (!halted()) {
      const item = next.next();
      if (item.done) return;
      await worker(item.value, taken++);
    }
  };
  const lanes = Array.isArray(items) ? Math.min(size, items.length) : size;
  await Promise.all(Array.from({ length: Math.max(0, lanes) }, lane));
}
