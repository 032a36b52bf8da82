// What the widget tests share: the backend (our real server, seeded through its API) and, from
// view.ts, mounting widgets, waiting for their events, and reading what a user sees.
import { afterAll, beforeAll } from "bun:test";
import { startBackend, type Backend } from "./backend";
import type { Attrs } from "./view";

export * from "./view";
export type { Backend } from "./backend";

/** The backend of this test file: started before its tests, stopped after them (beforeAll fills the object in). */
export function useBackend(): Backend {
  const b = {} as Backend;
  beforeAll(async () => void Object.assign(b, await startBackend()));
  afterAll(() => b.stop());
  return b;
}

/** Fetch the same data the widget shows, straight from the API. */
export async function apiData<T = any>(b: Backend, path: string, query: Attrs = {}, key = b.keys.full): Promise<T> {
  const url = new URL(b.base + path);
  for (const [k, v] of Object.entries(query)) if (v != null) url.searchParams.set(k, String(v));
  const res = await fetch(url, { headers: { "X-API-Key": key } });
  const body = (await res.json()) as any;
  if (!body.success) throw new Error(`${path}: ${JSON.stringify(body)}`);
  return body.data as T;
}
