// A ClickHouse user without SELECT on system.mutations (a server with select_from_system_db_requires_grant,
// docs/scaling.md) cannot read the mutation mark the stored retention and paths states are checked against:
// their reports then answer from the bundles, as without a stored state, rather than fail.

/** Whether `error` is ClickHouse refusing the read of system.mutations. */
export const markDenied = (error: unknown) => {
  // @clickhouse/client keeps the message without its code and type (ACCESS_DENIED) in `type`; chDB the whole text.
  const text = `${(error as Error)?.message ?? error} ${(error as { type?: string })?.type ?? ""}`;
  return /ACCESS_DENIED|Not enough privileges/i.test(text) && text.includes("mutations");
};

/** `run`'s answer, or null when the mutation mark cannot be read (the caller reads the bundles). */
export async function unlessMarkDenied<T>(run: () => Promise<T | null>): Promise<T | null> {
  try {
    return await run();
  } catch (error) {
    if (markDenied(error)) return null;
    throw error;
  }
}
