// Short codes: generated (7 base62 characters from crypto randomness) or chosen (custom aliases).
import { validationError } from "../errors";
import { requireTier, type Tier } from "../tiers";
import { aliasProblem } from "./aliases";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export function generateShortCode(length = 7): string {
  let out = "";
  while (out.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62]; // 248 = 4 × 62: no modulo bias
    }
  }
  return out;
}

export function validateAlias(alias: string, tier: Tier, field = "body.custom_alias"): string {
  requireTier(tier, "basic", "Custom aliases need", field);
  const problem = aliasProblem(alias);
  if (problem) throw validationError(field, problem);
  return alias;
}
