/**
 * The parts of a signature and its timestamp, changed one at a time (§5.2–§5.4): what the session writes for the
 * mutations a recipe names (recipe.ts). Each takes the valid value and returns the changed one; none is valid.
 */
import { SIGNATURE_PREFIX } from '../../spec/constants.js';
import type { DigestDamage, SignatureSpelling, SignedStringChange, TimestampNotation } from './recipe.js';

/** `hex` with the digit at `index` made another one. */
function withDigit(hex: string, index: number): string {
  return hex.slice(0, index) + ((hex[index] ?? '0') === '0' ? '1' : '0') + hex.slice(index + 1);
}

/** The valid header with one hex digit changed, or cut to its first half. */
export function damagedSignature(valid: string, damage: DigestDamage): string {
  const hex = valid.slice(SIGNATURE_PREFIX.length);
  const damaged: Record<DigestDamage, () => string> = {
    'last-digit': () => withDigit(hex, hex.length - 1),
    'first-digit': () => withDigit(hex, 0),
    'middle-digit': () => withDigit(hex, hex.length / 2),
    'first-half': () => hex.slice(0, hex.length / 2),
  };
  return SIGNATURE_PREFIX + damaged[damage]();
}

/** The valid MAC spelled another way: one header value, or the lines of several headers. */
export function respelledSignature(valid: string, spelling: SignatureSpelling): string | readonly string[] {
  const hex = valid.slice(SIGNATURE_PREFIX.length);
  const wrong = damagedSignature(valid, 'last-digit');
  const spelled: Record<SignatureSpelling, () => string | readonly string[]> = {
    'upper-case-hex': () => SIGNATURE_PREFIX + hex.toUpperCase(),
    'no-prefix': () => hex,
    'upper-case-prefix': () => `SHA256=${hex}`,
    'sha1-prefix': () => `sha1=${hex}`,
    base64: () => SIGNATURE_PREFIX + Buffer.from(hex, 'hex').toString('base64'),
    'one-digit-more': () => `${valid}0`,
    'two-headers': () => [wrong, valid],
    'comma-joined': () => `${wrong},${valid}`,
  };
  return spelled[spelling]();
}

/** The string an HMAC is made over instead of `timestamp "." body` (§5.2). */
export function otherSignedString(change: SignedStringChange, timestamp: string, body: Buffer): Buffer {
  const ts = Buffer.from(timestamp, 'utf8');
  const dot = Buffer.from('.', 'utf8');
  const parts: Record<SignedStringChange, Buffer[]> = {
    'no-timestamp': [dot, body],
    'no-dot': [ts, body],
    'no-body': [ts, dot],
    'body-only': [body],
    'colon-for-dot': [ts, Buffer.from(':', 'utf8'), body],
    'body-first': [body, dot, ts],
  };
  return Buffer.concat(parts[change]);
}

/** `seconds` written another way than plain digits: `+1767225600`, `1767225600.0`, `1.7672256e9`, `0x6955b900`. */
export function writtenTimestamp(notation: TimestampNotation, seconds: number): string {
  const digits = String(seconds);
  const written: Record<TimestampNotation, () => string> = {
    'plus-sign': () => `+${digits}`,
    decimal: () => `${digits}.0`,
    exponent: () => `${digits[0]}.${digits.slice(1).replace(/0+$/, '') || '0'}e${digits.length - 1}`,
    hex: () => `0x${seconds.toString(16)}`,
  };
  return written[notation]();
}
