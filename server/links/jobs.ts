// Background work of the links feature: the purge of links deleted more than 7 days ago.
import type { AppDeps } from "../app";
import { purgeDeletedLinks } from "./service";

const PURGE_EVERY_MS = 60 * 60_000;

export function startLinkJobs(deps: AppDeps) {
  const run = () =>
    purgeDeletedLinks(deps.pg)
      .then((n) => {
        if (n) deps.logger.info({ msg: "purged deleted links", count: n });
      })
      .catch((err) => deps.logger.error({ msg: "link purge failed", error: String(err) }));
  const timer = setInterval(run, PURGE_EVERY_MS);
  const first = setTimeout(run, 5_000);
  return () => {
    clearInterval(timer);
    clearTimeout(first);
  };
}
