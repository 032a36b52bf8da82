// The process outlives any exception: one thrown by a hook after its response was sent, by a timer or
// by a background job that forgot a catch is logged, and serving goes on. Each request and job already
// handles its own errors; this is the net under them.
import { describeError } from "./http/error-mapping";
import type { Logger } from "./http/logger";

export function guardProcess(logger: Pick<Logger, "error">): () => void {
  const report = (msg: string) => (error: unknown) => {
    try {
      logger.error({ msg, error: describeError(error) });
    } catch {
      // nowhere left to report
    }
  };
  const onException = report("uncaught exception");
  const onRejection = report("unhandled promise rejection");
  process.on("uncaughtException", onException);
  process.on("unhandledRejection", onRejection);
  return () => {
    process.off("uncaughtException", onException);
    process.off("unhandledRejection", onRejection);
  };
}
