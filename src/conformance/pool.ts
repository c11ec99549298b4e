/**
 * `size` lanes working through `items` in order, each taking the next item when its last is done, until `halted()`.
 * `items` may be lazy (a generator): an item is made only when a lane takes it.
 */
export async function pool<T>(
  items: Iterable<T>,
  size: number,
  worker: (item: T) => Promise<void>,
  halted: () => boolean,
): Promise<void> {
  const next = items[Symbol.iterator]();
  const lanes = Array.from({ length: Math.max(1, size) }, async () => {
    while (!halted()) {
      const item = next.next();
      if (item.done) return;
      await worker(item.value);
    }
  });
  await Promise.all(lanes);
}
