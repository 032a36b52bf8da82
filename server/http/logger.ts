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
  const emit = (lvl: "info" | "error", fields: Record<string, unknown>) => {
    if (level === "silent" || (level === "error" && lvl !== "error")) return;
    buffer.push(JSON.stringify({ time: new Date().toISOString(), level: lvl, ...fields }));
    if (!scheduled) { scheduled = true; setTimeout(flush, 50); }
  };
  return {
    info: (fields: Record<string, unknown>) => emit("info", fields),
    error: (fields: Record<string, unknown>) => emit("error", fields),
    flush,
  };
}
export type Logger = ReturnType<typeof createLogger>;
