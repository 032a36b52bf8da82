// The OpenAPI documents and the reference page, built from the finished app's route table.
import type { InternalRoute } from "elysia";
import type { Feature } from "../feature";
import { openApiRoutes } from "./routes";

export const openapiFeature: Feature<{ routeTable: () => readonly InternalRoute[] }> = {
  name: "openapi",
  create: (deps) => ({ routes: openApiRoutes(deps.routeTable) }),
};
