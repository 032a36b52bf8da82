// The contract of every feature folder, types only: `create(deps)` runs once per runtime and returns
// the feature's routes (an Elysia plugin), its background job and its front handler, each if it has
// one. A feature names the narrow deps it needs in its own interface; the runtime's deps object
// satisfies all of them.
import type { Server } from "bun";
import type { AnyElysia } from "elysia";
import type { Config } from "./config";
import type { Logger } from "./http/logger";
import type { CacheSync } from "./cluster/sync";
import type { Postgres } from "./storage/postgres/client";

/**
 * What a feature's shared part (its `shared.ts`: a cache or store other features use too) is made from,
 * before any feature is created. The runtime starts the cache sync once every shared part listens.
 */
export interface SharedFrom {
  config: Config;
  pg: Postgres;
  sync: CacheSync;
  logger: Logger;
}

/**
 * Background work of a feature (dispatchers, sweepers, counters written out). Made by `create`, so the
 * routes and the job share one state; started by the runtime unless it was opened with jobs off.
 */
export interface Job {
  /** Starts the timers. */
  start(): void;
  /** One round now; resolves when it, and any round already running, has finished. Works started or not. */
  runOnce(): Promise<void>;
  /** Stops the timers, waits for the running round and finishes (a last write, closed files). */
  stop(): Promise<void>;
}

/**
 * A handler in front of the app, asked first for every request that reaches the server (the redirect's
 * fast path): a Response (or its promise) when it answers the request, undefined to pass it on to the
 * app. It runs before the HTTP plumbing, so it owes the request whatever it skips (logs, metrics).
 */
export type FrontHandler = (request: Request, server: Server<unknown>) => Response | Promise<Response> | undefined;

/**
 * The body limit of a request whose body a route of the feature streams itself (an import's file),
 * instead of the server's MAX_BODY_BYTES read whole before the app; undefined for every other request.
 */
export type StreamedBodyLimit = (request: Request) => number | undefined;

export interface FeatureParts {
  routes?: AnyElysia;
  streamedBody?: StreamedBodyLimit;
  job?: Job;
  front?: FrontHandler;
}

export interface Feature<Deps> {
  readonly name: string;
  readonly create: (deps: Deps) => FeatureParts;
}
