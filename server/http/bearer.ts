// Constant-time check of an `Authorization: Bearer …` header against a configured token.
import { timingSafeEqual } from "node:crypto";

export function bearerMatches(header: string | null, token: string): boolean {
  const given = Buffer.from(header?.replace(/^Bearer\s+/i, "") ?? "");
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
