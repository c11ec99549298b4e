/**
 * Durations, the one place they are read and written as text: `500ms`, `30s`, `1h30m` from a flag or a file, and
 * `0.41 ms`, `850 ms`, `1.5 s`, `4 min`, `2 h 30 min` in every message, line, report and page. Plain functions,
 * no imports: every command may load it at no cost.
 */

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `500ms`, `30s`, `2m`, `24h`, `1h30m`; a bare number is seconds. Milliseconds, or undefined when it is none. */
export function parseDuration(value: string): number | undefined {
  const text = value.trim();
  if (/^[0-9]+(\.[0-9]+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const parts = [...text.matchAll(/([0-9]+(?:\.[0-9]+)?)(ms|s|m|h|d)/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join('') !== text) return undefined;
  return Math.round(parts.reduce((sum, part) => sum + Number(part[1]) * (UNITS[part[2] as string] ?? 0), 0));
}

/**
 * A duration as a person reads it: below a second with the digits a measured latency needs (`0.41 ms`, `12.3 ms`,
 * `850 ms`), then seconds to a tenth (`1.5 s`, `12 s`), then hours, minutes and seconds (`4 min`, `2 h 30 min`);
 * `unlimited` for no bound at all.
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return 'unlimited';
  if (ms < 1000) return ms >= 100 ? `${Math.round(ms)} ms` : `${upTo(ms, ms >= 10 ? 1 : 2)} ms`;
  if (ms < 60_000) return `${upTo(ms / 1000, 1)} s`;
  const totalSeconds = Math.round(ms / 1000);
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds % 60;
  return [h ? `${h} h` : '', m ? `${m} min` : '', s ? `${s} s` : ''].filter(Boolean).join(' ');
}

/** `value` with at most `digits` decimals, and none that are trailing zeros. */
function upTo(value: number, digits: number): string {
  return String(Number(value.toFixed(digits)));
}
