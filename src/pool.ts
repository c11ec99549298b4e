/**
 * The one worker pool: `size` lanes working through `items` in order, each taking the next item when its last is
 * done, until every item is taken or the run is stopped (`stopped()` says so, or the signal is aborted). An item
 * taken is always finished: stopping only keeps the next ones from being taken. Used by the batch send and, with
 * the conformance engine, by its checks, generated documents and sender scenarios.
 */
export async function pool<T>(
  items: readonly T[],
  size: number,
  worker: (item: T, index: number) => Promise<void>,
  stopped: (() => boolean) | AbortSignal = () => false,
): Promise<void> {
  const halted = typeof stopped === 'function' ? stopped : () => stopped.aborted;
  let next = 0;
  const lane = async () => {
    while (next < items.length && !halted()) {
      const index = next++;
      await worker(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(0, Math.min(size, items.length)) }, lane));
}
