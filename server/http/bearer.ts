// Constant-time checks of secrets sent by clients: `Authorization: Bearer …` and token headers.
import { timingSafeEqual } from "node:crypto";
import { AppError } from "../errors";

export function secretMatches(given: string | null | undefined, expected: string): boolean {
  const a = Buffer.from(given ?? "");
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export const bearerMatches = (header: string | null, token: string) => secretMatches(header?.replace(/^Bearer\s+/i, ""), token);

/** The admin API's gate: 404 when ADMIN_TOKEN is unset (the API does not exist), 401 without the bearer. */
export function requireAdminBearer(adminToken: string | undefined, header: string | null): void {
  if (!adminToken) throw new AppError("NOT_FOUND", "Route not found");
  if (!bearerMatches(header, adminToken)) throw new AppError("UNAUTHORIZED", "Missing or invalid admin bearer token");
}
