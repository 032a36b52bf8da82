// Driver error codes, read from the error (and its cause, as drizzle wraps driver errors).
const codeOf = (err: unknown): string | undefined => {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.code === "string") return e.code;
  }
  return undefined;
};

export const isUniqueViolation = (err: unknown) => codeOf(err) === "23505";
export const isForeignKeyViolation = (err: unknown) => codeOf(err) === "23503";
