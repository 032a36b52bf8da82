// The webhooks feature: the endpoints API and the delivery dispatcher.
import type { Feature } from "../feature";
import type { Auth } from "../http/auth";
import type { DeliveryDeps } from "./deliver";
import { createDispatcher } from "./dispatcher";
import { webhookRoutes } from "./routes";

export const webhooksFeature: Feature<DeliveryDeps & { auth: Auth }> = {
  name: "webhooks",
  create: (deps) => ({ routes: webhookRoutes(deps), job: createDispatcher(deps) }),
};
