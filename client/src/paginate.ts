// An async iterator over every item of a paginated list (links, journey sessions and events): it
// asks for one page after the other until `meta.total_pages`.
import type { Client } from "openapi-fetch";
import type { paths } from "./generated/schema";
import { SvcApiError, type ErrorBody } from "./errors";

type Json<R> = R extends { content: { "application/json": infer B } } ? B : never;
type Ok<P extends keyof paths> = paths[P] extends { get: { responses: { 200: infer R } } } ? Json<R> : never;

/** Paths whose GET answers a page: `data` is an array and `meta` has `total_pages`. */
export type PaginatedPath = {
  [P in keyof paths]: Ok<P> extends { data: unknown[]; meta: { total_pages: number } } ? P : never;
}[keyof paths];
export type PageItem<P extends PaginatedPath> = Ok<P> extends { data: (infer I)[] } ? I : never;
type Parameters<P extends PaginatedPath> = paths[P] extends { get: { parameters: infer Q } } ? Q : never;
export type PageParams<P extends PaginatedPath> = Omit<Parameters<P>, "header" | "cookie">;

export async function* paginate<P extends PaginatedPath>(
  client: Client<paths, "application/json">,
  path: P,
  params: PageParams<P>,
): AsyncGenerator<PageItem<P>, void, undefined> {
  const p = params as { query?: { page?: number } & Record<string, unknown>; path?: Record<string, unknown> };
  for (let page = p.query?.page ?? 1; ; page++) {
    const get = client.GET as (path: string, init: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
    const { data, error, response } = await get(path, { params: { ...p, query: { ...p.query, page } } });
    if (error !== undefined || data === undefined) throw new SvcApiError(response.status, error as ErrorBody);
    const body = data as { data: PageItem<P>[]; meta: { total_pages: number } };
    yield* body.data;
    if (page >= body.meta.total_pages || body.data.length === 0) return;
  }
}
