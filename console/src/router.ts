// Path routing under /console with the History API: a route table of patterns, `navigate`, and a hook
// that re-renders on navigation. Unknown paths fall back to the links list.
import { useEffect, useState } from "preact/hooks";

export const BASE = "/console";

/** Whether the console itself has changed the page (as opposed to the first load). */
export let navigated = false;

export function navigate(path: string, opts: { replace?: boolean } = {}) {
  navigated = true;
  const url = path.startsWith("/") ? BASE + path : path;
  if (opts.replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  dispatchEvent(new PopStateEvent("popstate"));
}

/** The path below /console, e.g. `/links/123`, and its query. */
export function currentRoute() {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) || "/" : "/";
  return { path: path.replace(/\/+$/, "") || "/", query: new URLSearchParams(location.search), hash: location.hash.slice(1) };
}

export function useRoute() {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const update = () => {
      navigated = true;
      setRoute(currentRoute());
    };
    addEventListener("popstate", update);
    return () => removeEventListener("popstate", update);
  }, []);
  return route;
}

/** Matches `/links/:id` against a path; returns the params or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split("/");
  const s = path.split("/");
  if (p.length !== s.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i].startsWith(":")) params[p[i].slice(1)] = decodeURIComponent(s[i]);
    else if (p[i] !== s[i]) return null;
  }
  return params;
}

/** Updates the query string of the current page without a new history entry (filters, pages). */
export function setQuery(values: Record<string, string | number | null | undefined>) {
  const q = new URLSearchParams(location.search);
  for (const [k, v] of Object.entries(values)) {
    if (v === null || v === undefined || v === "") q.delete(k);
    else q.set(k, String(v));
  }
  const qs = q.toString();
  // navigate() takes a path below /console: the current one, not location.pathname (which has /console).
  navigate(currentRoute().path + (qs ? `?${qs}` : ""), { replace: true });
}
