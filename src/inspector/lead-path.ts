/** The path segment of a lead's conversation: on the server (routes.ts, views.ts) and in the page (browser/script.ts). */

/**
 * A lead_id as a path segment: percent-encoded UTF-8, and a lone surrogate (valid in JSON, without a UTF-8 form) as
 * `%uD800`, which encoded text never holds (`%` is `%25`). A lead that would give no segment a URL keeps (empty, or
 * `.` and `..`, which URLs remove as dot segments) or one too long for a request line (over MAX_PLAIN characters:
 * a lead of 2 000 CJK characters is 18 000, past the server's header bound) is named by `%h` and the SHA-256 of its
 * UTF-16 code units instead; the server finds the lead that has it (conversation.ts leadWithPath). The page's
 * script (browser/inspector.js) is given these very functions (browser/script.ts): they name nothing outside
 * themselves.
 */
export function encodeLead(lead: string): string {
  const MAX_PLAIN = 1024;
  const lone = (char: string) => `%u${char.charCodeAt(0).toString(16).toUpperCase()}`;
  const plain = Array.from(lead, (char) =>
    /^[\ud800-\udfff]$/.test(char) ? lone(char) : encodeURIComponent(char),
  ).join('');
  const kept = plain !== '' && plain !== '.' && plain !== '..' && plain.length <= MAX_PLAIN;
  if (kept) return plain;
  // SHA-256 (FIPS 180-4) of the lead's UTF-16 code units, big-endian, in hex: code units, not UTF-8, so that a lone
  // surrogate has one too. Written out here rather than node:crypto's: the page computes the same segment without it
  // (crypto.subtle is asynchronous, and absent from a page served over plain HTTP to another machine), and this
  // function is all the page is given (a bundler renames what it would call).
  const digest = (text: string): string => {
    const K = [
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
      0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
      0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
      0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
      0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
      0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
      0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
      0xc67178f2,
    ];
    const hash = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    const bytes = text.length * 2;
    // The message, the 0x80 byte, zeros, and its length in bits as 64 bits: whole blocks of 16 words.
    const words = new Array<number>(((bytes + 8) >> 6) * 16 + 16).fill(0);
    const put = (index: number, value: number) => {
      words[index] = ((words[index] as number) | value) >>> 0;
    };
    for (let index = 0; index < text.length; index++) put(index >> 1, text.charCodeAt(index) << (index % 2 ? 0 : 16));
    put(bytes >> 2, 0x80 << (24 - (bytes % 4) * 8));
    words[words.length - 2] = Math.floor((bytes * 8) / 0x100000000);
    words[words.length - 1] = (bytes * 8) >>> 0;
    const rotate = (value: number, by: number) => (value >>> by) | (value << (32 - by));
    const schedule = new Array<number>(64).fill(0);
    const at = (list: number[], index: number) => list[index] as number;
    for (let block = 0; block < words.length; block += 16) {
      for (let t = 0; t < 64; t++) {
        if (t < 16) schedule[t] = at(words, block + t);
        else {
          const early = at(schedule, t - 15);
          const late = at(schedule, t - 2);
          const s0 = rotate(early, 7) ^ rotate(early, 18) ^ (early >>> 3);
          const s1 = rotate(late, 17) ^ rotate(late, 19) ^ (late >>> 10);
          schedule[t] = (at(schedule, t - 16) + s0 + at(schedule, t - 7) + s1) | 0;
        }
      }
      let [a, b, c, d, e, f, g, h] = hash as [number, number, number, number, number, number, number, number];
      for (let t = 0; t < 64; t++) {
        const sum1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25);
        const first = (h + sum1 + ((e & f) ^ (~e & g)) + at(K, t) + at(schedule, t)) | 0;
        const sum0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22);
        const second = (sum0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
        h = g;
        g = f;
        f = e;
        e = (d + first) | 0;
        d = c;
        c = b;
        b = a;
        a = (first + second) | 0;
      }
      [a, b, c, d, e, f, g, h].forEach((value, index) => {
        hash[index] = (at(hash, index) + value) | 0;
      });
    }
    return hash.map((value) => (value >>> 0).toString(16).padStart(8, '0')).join('');
  };
  return `%h${digest(lead)}`;
}

/** A path segment → the lead_id it names (`encodeLead` backwards); a URIError when it is not one, or is a digest. */
export function decodeLead(segment: string): string {
  const parts = segment.split(/%u(d[89a-f][0-9a-f]{2})/i);
  return parts
    .map((part, index) => (index % 2 ? String.fromCharCode(parseInt(part, 16)) : decodeURIComponent(part)))
    .join('');
}

/** A segment that names its lead by digest (encodeLead): no text to decode, the lead is looked up. */
export function isLeadDigest(segment: string): boolean {
  return /^%h[0-9a-f]{64}$/.test(segment);
}
