/** `size` lanes working through `items` in order, each taking the next item when its last is done, until `halted()`. */
export async function pool<T>(
  items: readonly T[],
  size: number,
  worker: (item: T) => Promise<void>,
  halted: () => boolean,
): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(size, items.length) }, async () => {
    while (next < items.length && !halted()) {
      const item = items[next++] as T;
      await worker(item);
    }
  });
  await Promise.all(lanes);
}
