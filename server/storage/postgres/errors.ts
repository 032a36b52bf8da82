// SQLSTATE codes of driver errors, read from the error and its causes (drizzle wraps driver errors).
// Bun's SQL client keeps its own code (ERR_POSTGRES_SERVER_ERROR) in `code` and the server's in
// `errno`; PGlite puts the server's in `code`.
const SQLSTATE = /^[0-9A-Z]{5}$/;

const codeOf = (err: unknown): string | undefined => codesOf(err).find((c) => SQLSTATE.test(c));

function codesOf(err: unknown): string[] {
  const codes: string[] = [];
  for (
    let e = err as { code?: unknown; errno?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 5;
    e = e.cause as typeof e, depth++
  ) {
    for (const c of [e.errno, e.code]) if (typeof c === "string") codes.push(c);
  }
  return codes;
}

export const isUniqueViolation = (err: unknown) => codeOf(err) === "23505";
export const isForeignKeyViolation = (err: unknown) => codeOf(err) === "23503";

/**
 * The server could not be reached or dropped the connection: Bun's client codes (refused, closed,
 * timed out), SQLSTATE class 08 (connection exception) but 08P01 (a protocol violation, such as too many parameters, is our error) and 57P01–57P03 (shutting down, cannot connect
 * now); a bare socket error only inside a Postgres error (a webhook's or a fetch's is not Postgres's).
 */
const POSTGRES_CONNECTION = /^(ERR_POSTGRES_(CONNECTION_\w+|IDLE_TIMEOUT|LIFETIME_TIMEOUT)|08(?!P01)[0-9A-Z]{3}|57P0[123])$/;
const SOCKET = /^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH)$/;
const POSTGRES_ERROR = /^(PostgresError|DrizzleQueryError)$/;
export function isConnectionFailure(err: unknown): boolean {
  const codes = codesOf(err);
  if (codes.some((c) => POSTGRES_CONNECTION.test(c))) return true;
  return codes.some((c) => SOCKET.test(c)) && namesOf(err).some((n) => POSTGRES_ERROR.test(n));
}

function namesOf(err: unknown): string[] {
  const names: string[] = [];
  for (let e = err as { name?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.name === "string") names.push(e.name);
    const ctor = (e as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof ctor === "string") names.push(ctor);
  }
  return names;
}

/** SQLSTATE 57014: the statement was cancelled (statement_timeout). */
export const isStatementTimeout = (err: unknown) => codeOf(err) === "57014";
