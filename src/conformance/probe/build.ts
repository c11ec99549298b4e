/**
 * A recipe made into the exact request it describes, signed now: the identity header, the X-CAI-Timestamp and the
 * X-CAI-Signature (§5.2–§5.5) as the recipe writes them (correct, rotated through the secrets §5.9, or spoiled on
 * purpose), then the recipe's own headers. No I/O: what ./session.ts sends.
 */
import { hmacHex, sign } from '../../signing/sign.js';
import { Headers, type InterfaceId, SIGNATURE_PREFIX } from '../../spec/constants.js';
import { interfaceSpec } from '../../spec/interfaces.js';
import type { RequestRecipe, SentRequest, SignatureRecipe, TimestampRecipe } from './recipe.js';
import { damagedSignature, otherSignedString, respelledSignature, writtenTimestamp } from './signature-forms.js';

/** Who signs: the interface, its identity header's value and the secrets (the first signs, §5.9). Named here, not
 * taken from session.ts, which imports this module. */
export interface SigningParty {
  interface: InterfaceId;
  /** B: the provider code (X-CAI-Provider). A: the platform id (X-CAI-Source). */
  identity: string;
  /** Signing secrets; the first signs (§5.9). */
  secrets: readonly string[];
}

/** The request of `recipe` to `url`, signed at `now` (unix seconds on the target's clock) by `config`'s first secret. */
export function buildRequest(config: SigningParty, url: string, recipe: RequestRecipe, now: number): SentRequest {
  const headers: Record<string, string> = { [Headers.contentType]: recipe.contentType ?? 'application/json' };
  const identity = recipe.identity ?? { kind: 'default' };
  const { identityHeader } = interfaceSpec(config.interface);
  if (identity.kind === 'default') headers[identityHeader] = config.identity;
  if (identity.kind === 'value') headers[identityHeader] = identity.value;
  const timestamp = timestampOf(recipe.timestamp ?? { kind: 'now' }, now);
  if (timestamp !== undefined) headers[Headers.timestamp] = timestamp;
  let lines: Record<string, readonly string[]> | undefined;
  if (recipe.timestamp?.kind === 'stale-and-fresh') {
    // Shown joined, as a receiver that joins them reads them; sent one line each.
    lines = { [Headers.timestamp]: [timestamp as string, String(now)] };
    headers[Headers.timestamp] = `${timestamp}, ${now}`;
  }
  const chosen = recipe.signature ?? { kind: 'valid' };
  const secret = chosen.kind === 'rotation' ? config.secrets[chosen.index % config.secrets.length] : config.secrets[0];
  const signature = signatureOf(
    chosen,
    secret ?? '',
    timestamp ?? String(now),
    recipe.body,
    bareTimestampOf(recipe.timestamp, now),
  );
  if (typeof signature === 'string') headers[Headers.signature] = signature;
  else if (signature !== undefined) {
    // Several header lines: shown joined, as a receiver that joins them reads them; sent one line each.
    headers[Headers.signature] = signature.join(', ');
    lines = { ...lines, [Headers.signature]: signature };
  }
  for (const [name, value] of Object.entries(recipe.headers ?? {})) headers[name.toLowerCase()] = value;
  return { url, headers, ...(lines ? { lines } : {}), body: recipe.body, recipe, sentAtMs: Date.now() };
}

/** The X-CAI-Timestamp a recipe sends (none for `none`), from now on the target's clock in unix seconds. */
function timestampOf(recipe: TimestampRecipe, nowSeconds: number): string | undefined {
  if (recipe.kind === 'now') return `${recipe.prefix ?? ''}${nowSeconds + (recipe.shiftSeconds ?? 0)}`;
  if (recipe.kind === 'stale-and-fresh') return String(nowSeconds + recipe.shiftSeconds);
  if (recipe.kind === 'written') return writtenTimestamp(recipe.notation, nowSeconds);
  if (recipe.kind === 'milliseconds') return String(nowSeconds * 1000 + 123);
  return recipe.kind === 'literal' ? recipe.value : undefined;
}

/** The digits of a `now` timestamp without its prefix (what `bare-timestamp` signs). */
function bareTimestampOf(recipe: TimestampRecipe | undefined, nowSeconds: number): string {
  return String(nowSeconds + (recipe?.kind === 'now' ? (recipe.shiftSeconds ?? 0) : 0));
}

/**
 * The X-CAI-Signature a recipe sends (none for `none`; several lines for a list); `timestamp` is the one sent, or
 * now when none is.
 */
function signatureOf(
  recipe: SignatureRecipe,
  secret: string,
  timestamp: string,
  body: Buffer,
  bareTimestamp: string,
): string | readonly string[] | undefined {
  switch (recipe.kind) {
    case 'valid':
    case 'rotation':
      return sign(secret, timestamp, body);
    case 'bare-timestamp':
      return sign(secret, bareTimestamp, body);
    case 'wrong-secret':
      return sign(recipe.secret, timestamp, body);
    case 'other-body':
      return sign(secret, timestamp, recipe.body);
    case 'other-timestamp':
      return sign(secret, recipe.timestamp, body);
    case 'truncated':
      return sign(secret, timestamp, body).slice(0, -1);
    case 'literal':
      return recipe.value;
    case 'none':
      return undefined;
    case 'respelled':
      return respelledSignature(sign(secret, timestamp, body), recipe.spelling);
    case 'damaged':
      return damagedSignature(sign(secret, timestamp, body), recipe.damage);
    case 'other-string':
      return `${SIGNATURE_PREFIX}${hmacHex(secret, otherSignedString(recipe.change, timestamp, body))}`;
  }
}
