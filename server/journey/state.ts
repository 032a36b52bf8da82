// The journey feature's in-process state (link cache, usage meter), one per runtime: shared by its
// routes and its background job, which the feature registry hands different deps objects.
import type { AppDeps } from "../app";
import { createLinkOwnership, type LinkOwnership } from "./link-cache";
import { createUsageMeter, type UsageMeter } from "./usage";

export interface JourneyState {
  links: LinkOwnership;
  usage: UsageMeter;
}

const states = new WeakMap<object, JourneyState>();

export function journeyState(deps: Pick<AppDeps, "pg" | "kv" | "logger">): JourneyState {
  let state = states.get(deps.pg);
  if (!state) {
    state = {
      links: createLinkOwnership(deps.pg.db),
      usage: createUsageMeter(deps.pg.db, deps.kv, {
        onError: (err) => deps.logger.error({ msg: "journey usage not persisted", error: String(err) }),
      }),
    };
    states.set(deps.pg, state);
  }
  return state;
}
