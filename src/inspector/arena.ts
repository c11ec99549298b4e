/**
 * Where the inspector copies the bodies it keeps: large chunks of its own, filled one body after another. The
 * requests are dropped oldest first, so a chunk is freed once its last body goes: the memory held is the bodies kept
 * plus about one chunk. (A copy from Node's shared pool would pin an 8 KiB slab of other, dead allocations per
 * body; a buffer of its own per body costs an allocation and a finalizer each.)
 */
import { READ_CHUNK_BYTES } from '../bounds.js';

export class Arena {
  private chunk: Buffer | undefined;
  private used = 0;

  constructor(private readonly chunkBytes = READ_CHUNK_BYTES) {}

  /** A copy of the first `length` bytes of `bytes` (a view into a chunk, or a buffer of its own when large). */
  copy(bytes: Buffer, length = bytes.length): Buffer {
    if (length * 4 > this.chunkBytes) {
      const own = Buffer.allocUnsafeSlow(length);
      bytes.copy(own, 0, 0, length);
      return own;
    }
    if (this.chunk === undefined || this.used + length > this.chunk.length) {
      this.chunk = Buffer.allocUnsafeSlow(this.chunkBytes);
      this.used = 0;
    }
    bytes.copy(this.chunk, this.used, 0, length);
    const view = this.chunk.subarray(this.used, this.used + length);
    this.used += length;
    return view;
  }
}
