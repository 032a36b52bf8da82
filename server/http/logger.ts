// One JSON line per request, written in batches so logging never costs a syscall per request.
export type LogLevel = "info" | "error" | "silent";

export function createLogger(level: LogLevel, write: (chunk: string) => void = (c) => process.stdout.write(c)) {
  let buffer: string[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (buffer.length === 0) return;
    const chunk = buffer.join("\n") + "\n";
    buffer = [];
    write(chunk);
  };
  // The ISO timestamp is computed at most once per millisecond.
  let stampMs = 0;
  let stamp = "";
  const now = () => {
    const ms = Date.now();
    if (ms !== stampMs) {
      stampMs = ms;
      stamp = new Date(ms).toISOString();
    }
    return stamp;
  };
  const push = (line: string) => {
    buffer.push(line);
    if (!scheduled) {
      scheduled = true;
      setTimeout(flush, 50);
    }
  };
  const emit = (lvl: "info" | "error", fields: Record<string, unknown>) => {
    if (level === "silent" || (level === "error" && lvl !== "error")) return;
    push(JSON.stringify({ time: now(), level: lvl, ...fields }));
  };
  return {
    info: (fields: Record<string, unknown>) => emit("info", fields),
    error: (fields: Record<string, unknown>) => emit("error", fields),
    /** An info line from pre-escaped JSON members (the redirect hot path; values must need no escaping). */
    line: (members: string) => {
      if (level === "info") push(`{"time":"${now()}","level":"info",${members}}`);
    },
    flush,
  };
}
export type Logger = ReturnType<typeof createLogger>;
