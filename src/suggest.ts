/**
 * "did you mean …?" for a value that is not one of a known list (a fault, an event type, a check id or tag, a
 * choice): the known value nearest by edit distance, when it is near enough to be a typo of it. One helper, used
 * wherever a value is checked against a list, so every command answers a typo the same way.
 */

/**
 * Edit distance with adjacent transpositions (optimal string alignment), case-insensitive: `no-dedup` →
 * `no-dedupe` is 1, `platfrom` → `platform` is 1.
 */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  const rows: number[][] = Array.from({ length: s.length + 1 }, (_, i) =>
    Array.from({ length: t.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= s.length; i += 1) {
    const row = rows[i] as number[];
    const above = rows[i - 1] as number[];
    for (let j = 1; j <= t.length; j += 1) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let best = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1])
        best = Math.min(best, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      row[j] = best;
    }
  }
  return (rows[s.length] as number[])[t.length] as number;
}

/**
 * The known value nearest to `value`, if it is near enough to be what was meant: one edit apart for a word of
 * up to 7 characters, two for a longer one (`B-NOPE-001` is not a typo of `B-SIZE-001`), but never one that changes
 * every character (`C` is no typo of `A`), or the only known value that starts with it.
 */
export function closestValue(value: string, known: readonly string[]): string | undefined {
  if (value === '' || known.length === 0) return undefined;
  const allowed = value.length >= 8 ? 2 : 1;
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of known) {
    // The distance is at least the difference in length, so a candidate further than that is never the one meant,
    // and skipping it keeps a pasted 100 KB value from costing seconds of edit-distance tables.
    if (Math.abs(value.length - candidate.length) > allowed) continue;
    const distance = editDistance(value, candidate);
    if (best === undefined || distance < best.distance) best = { candidate, distance };
  }
  // Every character changed is no typo (`C` for `A`): nothing of the value is in the suggestion.
  const sharesSomething = best !== undefined && best.distance < Math.max(value.length, best.candidate.length);
  if (best !== undefined && sharesSomething && best.distance > 0 && best.distance <= allowed) return best.candidate;
  const prefixed = known.filter((candidate) => candidate.toLowerCase().startsWith(value.toLowerCase()));
  return prefixed.length === 1 ? prefixed[0] : undefined;
}

/** Lists of up to this many values are named whole in an error; longer ones are left to `--help`. */
const LISTED = 8;

/**
 * What to say about a value that is not in `known`: `did you mean X?` when one is near, else the values themselves
 * when they are few, else undefined (the caller points to where they are listed).
 */
export function suggestValue(value: string, known: readonly string[]): string | undefined {
  const near = closestValue(value, known);
  if (near !== undefined) return `did you mean ${near}?`;
  return known.length <= LISTED ? `expected one of: ${known.join(', ')}` : undefined;
}

/** ` (did you mean X?)` when `value` is a typo of one of `known` (`quote` writes X as a JSON string), else nothing. */
export function didYouMean(value: string, known: readonly string[], quote = false): string {
  const near = closestValue(value, known);
  if (near === undefined) return '';
  return ` (did you mean ${quote ? JSON.stringify(near) : near}?)`;
}

/** Values not in `known`, listed for an error, each with the value meant when it is a typo: `dedup (did you mean dedupe?)`. */
export function listUnknown(values: readonly string[], known: readonly string[]): string {
  return values.map((value) => `${value}${didYouMean(value, known)}`).join(', ');
}

/** What `--only`, `--skip` and `--include` accept, from the catalogue's data: check ids, tags and levels. */
export function selectorWords(checks: readonly { id: string; tags: readonly string[]; level: string }[]): string[] {
  return [...new Set(checks.flatMap((check) => [check.id, ...check.tags, check.level]))];
}
