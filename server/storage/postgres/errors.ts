// SQLSTATE codes of driver errors, read from the error and its causes (drizzle wraps driver errors).
// Bun's SQL client keeps its own code (ERR_POSTGRES_SERVER_ERROR) in `code` and the server's in
// `errno`; PGlite puts the server's in `code`.
const SQLSTATE = /^[0-9A-Z]{5}$/;

const codeOf = (err: unknown): string | undefined => {
  for (
    let e = err as { code?: unknown; errno?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 5;
    e = e.cause as typeof e, depth++
  ) {
    for (const c of [e.errno, e.code]) if (typeof c === "string" && SQLSTATE.test(c)) return c;
  }
  return undefined;
};

export const isUniqueViolation = (err: unknown) => codeOf(err) === "23505";
export const isForeignKeyViolation = (err: unknown) => codeOf(err) === "23503";
