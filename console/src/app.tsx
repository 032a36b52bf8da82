// The console: loads the session, then shows either the sign-in pages or the signed-in shell and the page
// of the current path. Every page change moves focus to its heading and names the document.
import { useEffect, useMemo, useState } from "preact/hooks";
import { ApiError, CONSOLE, get, post, setCsrfToken, whenSignedOut } from "./api";
import { announcePage } from "./lazy";
import { currentRoute, navigate, useRoute } from "./router";
import { SessionContext, type SessionState } from "./session";
import type { AuthConfig, Session } from "./types";
import { AuthPages } from "./pages/auth";
import { Shell } from "./shell";
import { Alert, Loading } from "./ui/parts";
import { pageFor, preloadPage } from "./routes";

const AUTH_PATHS = ["/sign-in", "/sign-up", "/setup", "/invite", "/forgot", "/reset"];

/** A path below /console to return to after signing in; anything else (another origin, an auth page) is ignored. */
export function safeNext(next: string | null): string | null {
  if (!next || !next.startsWith("/") || next.startsWith("//") || next.includes("\\")) return null;
  return AUTH_PATHS.some((p) => next === p || next.startsWith(`${p}?`)) ? null : next;
}

export function App() {
  const route = useRoute();
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [bootError, setBootError] = useState<ApiError | null>(null);

  const load = async () => {
    try {
      // Signed out, GET /session would answer 401, which the browser logs as an error: ask first.
      const cfg = await get<AuthConfig>(`${CONSOLE}/auth/config`);
      if (!cfg.signed_in) return setSession(null);
      const s = await get<Session>(`${CONSOLE}/session`);
      setCsrfToken(s.csrf_token);
      setSession(s);
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) setSession(null);
      else setBootError(e as ApiError);
    }
  };
  useEffect(() => {
    whenSignedOut(() => setSession(null));
    void load();
    if (!AUTH_PATHS.includes(route.path)) preloadPage(route.path);
  }, []);

  const onAuthPath = AUTH_PATHS.includes(route.path);
  useEffect(() => {
    // Signing in returns to the page that was asked for (`next`, a path below /console only).
    if (session === null && !onAuthPath) {
      const asked = route.path === "/" ? "" : route.path + location.search;
      navigate(asked ? `/sign-in?next=${encodeURIComponent(asked)}` : "/sign-in", { replace: true });
    }
    if (session && (onAuthPath || route.path === "/")) navigate(safeNext(route.query.get("next")) ?? "/links", { replace: true });
  }, [session, route.path]);

  // After each navigation inside the console the new page's heading gets focus (so it is announced);
  // a page loaded by the browser keeps the usual start (the skip link first). The heading names the document.
  // A page whose chunk is still loading does the same when it arrives (lazy.tsx).
  useEffect(announcePage, [route.path, !!session]);

  const state = useMemo<SessionState | null>(
    () =>
      session
        ? {
            session,
            can: (p) => (session.permissions as readonly string[]).includes(p),
            refresh: load,
            signOut: async () => {
              await post(`${CONSOLE}/session/sign-out`).catch(() => {});
              setSession(null);
            },
          }
        : null,
    [session],
  );

  if (bootError)
    return (
      <main id="main" class="narrow">
        <h1>The console could not start</h1>
        <Alert error={bootError} />
      </main>
    );
  if (session === undefined) return <Loading what="Loading the console" />;
  if (!state || onAuthPath) return <AuthPages route={route} onSignedIn={(s) => (setCsrfToken(s.csrf_token), setSession(s))} />;
  return (
    <SessionContext.Provider value={state}>
      <Shell>{pageFor(currentRoute().path, route.query)}</Shell>
    </SessionContext.Provider>
  );
}
