// Hourly: forget sessions past their idle or absolute expiry (they are refused anyway; this keeps the table small).
import type { AppDeps } from "../app";
import { deleteExpiredSessions } from "./repository";

export function startUserJobs(deps: AppDeps) {
  const sweep = () =>
    deleteExpiredSessions(deps.pg.db, deps.sessions.idleSince()).catch((err) =>
      deps.logger.error({ msg: "session sweep failed", error: String(err) }),
    );
  const timer = setInterval(sweep, 3_600_000);
  timer.unref?.();
  return () => clearInterval(timer);
}
