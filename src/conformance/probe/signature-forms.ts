/**
 * The parts of a signature and its timestamp, changed one at a time (§5.2–§5.4): what the session writes for the
 * mutations a recipe names (recipe.ts). Each takes the valid value and returns the changed one; none is valid.
 */
import { SIGNATURE_PREFIX } from '../../spec/constants.js';
import type { DigestDamage, SignatureSpelling, SignedStringChange, TimestampNotation } from './recipe.js';

/** A hex digit other than `digit`. */
function otherDigit(digit: string): string {
  return digit === '0' ? '1' : '0';
}

function withDigit(hex: string, index: number): string {
  return hex.slice(0, index) + otherDigit(hex[index] ?? '0') + hex.slice(index + 1);
}

/** The valid header with one hex digit changed, or cut to its first half. */
export function damagedSignature(valid: string, damage: DigestDamage): string {
  const hex = valid.slice(SIGNATURE_PREFIX.length);
  switch (damage) {
    case 'last-digit':
      return SIGNATURE_PREFIX + withDigit(hex, hex.length - 1);
    case 'first-digit':
      return SIGNATURE_PREFIX + withDigit(hex, 0);
    case 'middle-digit':
      return SIGNATURE_PREFIX + withDigit(hex, hex.length / 2);
    case 'first-half':
      return SIGNATURE_PREFIX + hex.slice(0, hex.length / 2);
  }
}

/** The valid MAC spelled another way: one header value, or the lines of several headers. */
export function respelledSignature(valid: string, spelling: SignatureSpelling): string | readonly string[] {
  const hex = valid.slice(SIGNATURE_PREFIX.length);
  const wrong = damagedSignature(valid, 'last-digit');
  switch (spelling) {
    case 'upper-case-hex':
      return SIGNATURE_PREFIX + hex.toUpperCase();
    case 'no-prefix':
      return hex;
    case 'upper-case-prefix':
      return `SHA256=${hex}`;
    case 'sha1-prefix':
      return `sha1=${hex}`;
    case 'base64':
      return SIGNATURE_PREFIX + Buffer.from(hex, 'hex').toString('base64');
    case 'one-digit-more':
      return `${valid}0`;
    case 'two-headers':
      return [wrong, valid];
    case 'comma-joined':
      return `${wrong},${valid}`;
  }
}

/** The string an HMAC is made over instead of `timestamp "." body` (§5.2). */
export function otherSignedString(change: SignedStringChange, timestamp: string, body: Buffer): Buffer {
  const ts = Buffer.from(timestamp, 'utf8');
  const dot = Buffer.from('.', 'utf8');
  switch (change) {
    case 'no-timestamp':
      return Buffer.concat([dot, body]);
    case 'no-dot':
      return Buffer.concat([ts, body]);
    case 'no-body':
      return Buffer.concat([ts, dot]);
    case 'body-only':
      return body;
    case 'colon-for-dot':
      return Buffer.concat([ts, Buffer.from(':', 'utf8'), body]);
    case 'body-first':
      return Buffer.concat([body, dot, ts]);
  }
}

/** `seconds` written another way than plain digits: `+1767225600`, `1767225600.0`, `1.7672256e9`, `0x6955b900`. */
export function writtenTimestamp(notation: TimestampNotation, seconds: number): string {
  const digits = String(seconds);
  switch (notation) {
    case 'plus-sign':
      return `+${digits}`;
    case 'decimal':
      return `${digits}.0`;
    case 'exponent':
      return `${digits[0]}.${digits.slice(1).replace(/0+$/, '') || '0'}e${digits.length - 1}`;
    case 'hex':
      return `0x${seconds.toString(16)}`;
  }
}
