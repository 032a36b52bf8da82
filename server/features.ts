// The features of the service, in one list: each contributes routes and, optionally, background jobs.
// Adding a feature is one line here.
import type { AnyElysia } from "elysia";
import type { AppDeps, FeatureDeps } from "./app";

export interface Feature {
  name: string;
  routes?: (deps: FeatureDeps) => AnyElysia;
  /** Starts background work (dispatchers, sweepers); returns a stop function awaited at shutdown. */
  start?: (deps: AppDeps) => (() => Promise<void> | void) | void;
}

export const FEATURES: Feature[] = [
];
