// Background work of the webhooks feature: the delivery dispatcher and the link expiry sweeper.
import type { AppDeps } from "../app";
import { startDispatcher } from "./dispatcher";
import { startLinkExpirySweeper } from "./link-expiry";

export function startWebhookJobs(deps: AppDeps): () => Promise<void> {
  const stops = [startDispatcher(deps), startLinkExpirySweeper(deps)];
  return async () => {
    await Promise.all(stops.map((stop) => stop()));
  };
}
