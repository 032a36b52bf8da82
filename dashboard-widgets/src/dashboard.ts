// Owns the logic of dashboard.html: the saved key, the link picker (GET /links, links:read), the
// range, funnel steps and theme controls, all applied to the widgets as attributes. Without a saved key,
// a console user signed in on this origin sees their account: the widgets then send no key and the API
// reads the session cookie (reads only; writes would need the console's CSRF token). The build
// inlines this into the page and points its './api' import at /widgets.js.
import { apiGet, explainError, type ApiErrorInfo } from "./api";
import type { LinkListItem } from "./types";

export interface DashboardOptions {
  storage?: Storage;
  /** Defaults to <html data-api-base>, then this origin + /public-api/v1. */
  apiBase?: string;
}

export interface Dashboard {
  /** Settles when the first link list load is done. */
  ready: Promise<void>;
  /** Reload the link list (resolves once the select is filled or the error is shown). */
  loadLinks(): Promise<void>;
  /** Push the controls' values onto the widgets. */
  apply(): void;
}

const ANALYTICS = "svc-summary,svc-timeseries,svc-breakdown";
const PER_LINK = "svc-link-stats,svc-funnel,svc-conversions,svc-attribution";
const PERIODIC = "svc-funnel,svc-conversions,svc-attribution";

export function startDashboard(doc: Document = document, opts: DashboardOptions = {}): Dashboard {
  const store = opts.storage ?? localStorage;
  const base = opts.apiBase || doc.documentElement.dataset.apiBase || location.origin + "/public-api/v1";
  const $ = <E extends HTMLElement>(id: string) => doc.getElementById(id) as E;
  const form = $<HTMLFormElement>("controls");
  const keyInput = $<HTMLInputElement>("api-key");
  const linkSel = $<HTMLSelectElement>("link");
  const range = $<HTMLSelectElement>("range");
  const steps = $<HTMLInputElement>("steps");
  const themeBtn = $<HTMLButtonElement>("theme");
  const status = $("status");
  const main = $("widgets");
  const tpl = $<HTMLTemplateElement>("widget-template");
  const get = (k: string) => store.getItem("svc-dashboard:" + k);
  const put = (k: string, v: string) => (v ? store.setItem("svc-dashboard:" + k, v) : store.removeItem("svc-dashboard:" + k));

  let key = get("key") || "";
  /** Who is signed in to the console on this origin (used when no key is saved), or null. */
  let session: { email: string; account: string } | null = null;
  let theme = get("theme") || (doc.defaultView?.matchMedia?.("(prefers-color-scheme: dark)").matches ? "dark" : "light");
  keyInput.value = key;
  if (get("range")) range.value = get("range")!;
  steps.value = get("steps") ?? steps.value;

  const each = (sel: string, fn: (el: Element) => void) => main.querySelectorAll(sel).forEach(fn);
  const set = (el: Element, name: string, value: string) => (value ? el.setAttribute(name, value) : el.removeAttribute(name));

  function apply(): void {
    doc.documentElement.dataset.theme = theme;
    themeBtn.setAttribute("aria-pressed", String(theme === "dark"));
    themeBtn.textContent = theme === "dark" ? "Light theme" : "Dark theme";
    if (!key && !session) {
      main.replaceChildren();
      status.textContent = "Paste a read-only API key (scopes analytics:read, journey:read, conversions:read, links:read) and save it.";
      return;
    }
    // Widgets are created only once there is a key or a session, so none of them starts with a 401.
    if (!main.firstElementChild) main.append(tpl.content.cloneNode(true));
    each(ANALYTICS + "," + PER_LINK, (w) => {
      w.setAttribute("api-base", base);
      set(w, "api-key", key);
      w.setAttribute("theme", theme);
    });
    each(ANALYTICS, (w) => w.setAttribute("days", range.value));
    each(PERIODIC, (w) => w.setAttribute("period", range.value + "d"));
    // A picked link narrows every widget, the click reports included (they showed the account's numbers).
    each(ANALYTICS + "," + PER_LINK, (w) => set(w, "link-id", linkSel.value));
    each("svc-funnel", (w) => set(w, "steps", steps.value.trim()));
  }

  async function loadLinks(): Promise<void> {
    if (!key) session = await consoleSession(base);
    if (!key && !session) return apply();
    linkSel.dataset.state = "loading";
    try {
      const links = await apiGet<LinkListItem[]>(base, "/links", { per_page: 100 }, key || null);
      const want = get("link");
      const option = (text: string, value: string) => Object.assign(doc.createElement("option"), { text, value });
      const opts = links.map((l) => option(l.title ? `${l.short_url} — ${l.title}` : l.short_url, l.id));
      linkSel.replaceChildren(option("All links", ""), ...opts);
      linkSel.value = links.some((l) => l.id === want) ? want! : links[0]?.id || "";
      linkSel.dataset.state = "ready";
      const who = !key && session ? `Signed in to the console as ${session.email}: showing ${session.account}. ` : "";
      status.textContent = who + (links.length ? "" : "This account has no links yet.");
    } catch (e) {
      const err = e as ApiErrorInfo;
      linkSel.dataset.state = "error";
      // Said once, here: a refused key would fail every widget with the same words.
      if (err.status === 401) {
        status.textContent = `Could not list links: ${err.message}. Paste a valid key and save it.`;
        main.replaceChildren();
        return;
      }
      const why = explainError(err, "links:read");
      status.textContent = `Could not list links: ${err.message}.${why ? ` ${why}` : ""}`;
    }
    apply();
  }

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    key = keyInput.value.trim();
    put("key", key);
    put("steps", steps.value.trim());
    apply();
    void loadLinks();
  });
  linkSel.addEventListener("change", () => (put("link", linkSel.value), apply()));
  range.addEventListener("change", () => (put("range", range.value), apply()));
  steps.addEventListener("change", () => (put("steps", steps.value.trim()), apply()));
  themeBtn.addEventListener("click", () => {
    theme = theme === "dark" ? "light" : "dark";
    put("theme", theme);
    apply();
  });

  apply();
  return { ready: loadLinks(), loadLinks, apply };
}

/** The console session on the API's own origin (same-origin cookies only), or null when none. */
async function consoleSession(base: string): Promise<{ email: string; account: string } | null> {
  const origin = new URL(base).origin;
  if (origin !== location.origin) return null;
  const json = { headers: { Accept: "application/json" } };
  try {
    // Asked first so that a signed-out visitor's browser logs no 401.
    const config = await fetch(origin + "/console/api/auth/config", json).then((r) => (r.ok ? r.json() : null));
    if (config?.data?.signed_in !== true) return null;
    const res = await fetch(origin + "/console/api/session", json);
    if (!res.ok) return null;
    const body = await res.json();
    return body?.data?.user?.email ? { email: body.data.user.email, account: body.data.account?.name ?? "your account" } : null;
  } catch {
    return null;
  }
}
