// What the widget tests share: the backend (our real server, seeded through its API), mounting
// widgets, waiting for their events, and reading what a user sees.
import { afterEach } from "bun:test";
import { useDom, win } from "./dom";
import "../../dashboard-widgets/src/define";
import { startBackend, type Backend } from "./backend";

export { startBackend, win };
export type { Backend };

export type Attrs = Record<string, string | number | null | undefined>;

const mounted = new Set<Element>();

/** DOM globals for this file, a clean body after each test, and lang="en-US". */
export function setupWidgetTests(): void {
  useDom();
  afterEach(() => {
    for (const el of mounted) el.remove();
    mounted.clear();
    win.document.documentElement.setAttribute("lang", "en-US");
  });
  win.document.documentElement.setAttribute("lang", "en-US");
}

/** An element of the test window, typed as the DOM lib types it. */
export function create<K extends keyof HTMLElementTagNameMap>(tag: K): HTMLElementTagNameMap[K] {
  return win.document.createElement(tag) as unknown as HTMLElementTagNameMap[K];
}

export function mount<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs): HTMLElementTagNameMap[K] {
  const el = create(tag);
  setAttrs(el, attrs);
  document.body.appendChild(el);
  mounted.add(el);
  return el;
}

export function setAttrs(el: Element, attrs: Attrs): void {
  for (const [k, v] of Object.entries(attrs)) v == null ? el.removeAttribute(k) : el.setAttribute(k, String(v));
}

export interface Settled {
  type: "svc-load" | "svc-error";
  detail: any;
}

/** The next svc-load or svc-error the element dispatches (caught on document, so it must bubble out). */
export function settled(el: Element, timeout = 20_000): Promise<Settled> {
  return new Promise((resolve, reject) => {
    const doc = win.document;
    const timer = setTimeout(() => (off(), reject(new Error(`${el.tagName}: no svc-load/svc-error in ${timeout} ms`))), timeout);
    const on = (e: any) => {
      if (e.target !== el) return;
      off();
      resolve({ type: e.type, detail: e.detail });
    };
    const off = () => {
      clearTimeout(timer);
      doc.removeEventListener("svc-load", on);
      doc.removeEventListener("svc-error", on);
    };
    doc.addEventListener("svc-load", on);
    doc.addEventListener("svc-error", on);
  });
}

export async function loaded(el: Element): Promise<any> {
  const s = await settled(el);
  if (s.type !== "svc-load") throw new Error(`${el.tagName} failed: ${JSON.stringify(s.detail)}`);
  return s.detail;
}

const root = (el: Element) => el.shadowRoot as unknown as ParentNode;

/** Text a person reads: the shadow root without <style> and SVG tooltips, whitespace collapsed. */
export function text(el: Element): string {
  const parts: string[] = [];
  const walk = (n: Node) => {
    if (n.nodeType === 3) parts.push(n.textContent ?? "");
    else if (!["STYLE", "TITLE", "title"].includes((n as Element).tagName)) n.childNodes.forEach(walk);
    if (n.nodeType === 1 && ["DT", "DD", "P", "LI", "TD", "TH", "H2", "H3", "SUMMARY", "CAPTION"].includes((n as Element).tagName))
      parts.push(" ");
  };
  root(el).childNodes.forEach(walk);
  return parts.join("").replace(/\s+/g, " ").trim();
}

/** The value shown under a stat label (<dt>label</dt><dd>value</dd>). */
export function stat(el: Element, label: string): string | undefined {
  const dt = [...root(el).querySelectorAll("dt")].find((d) => d.textContent?.trim() === label);
  return dt?.nextElementSibling?.textContent?.trim();
}
/** The note under a stat's value, if any. */
export function statNote(el: Element, label: string): string | undefined {
  const dt = [...root(el).querySelectorAll("dt")].find((d) => d.textContent?.trim() === label);
  const note = dt?.nextElementSibling?.nextElementSibling;
  return note?.classList.contains("note") ? note.textContent?.trim() : undefined;
}

/** Rows of the table whose caption is `caption` (or the first table): header row first. */
export function table(el: Element, caption?: string): string[][] {
  const tables = [...root(el).querySelectorAll("table")];
  const t = caption ? tables.find((x) => x.querySelector("caption")?.textContent === caption) : tables[0];
  if (!t) throw new Error(`no table ${caption ?? ""} in ${el.tagName}: ${text(el)}`);
  return [...t.querySelectorAll("tr")].map((tr) => [...tr.children].map((c) => c.textContent?.trim() ?? ""));
}

export function charts(el: Element): Element[] {
  return [...root(el).querySelectorAll("svg.chart")];
}

export function errorBox(el: Element): string | undefined {
  return root(el).querySelector("[role=alert]")?.textContent?.replace(/\s+/g, " ").trim();
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

/** Records every request the widgets make (whatever the backend) while it is installed. */
export function spyFetch(): { urls: URL[]; restore(): void } {
  const real = globalThis.fetch;
  const urls: URL[] = [];
  globalThis.fetch = Object.assign((input: any, init?: any) => {
    urls.push(new URL(input instanceof URL ? input.href : typeof input === "string" ? input : input.url));
    return real(input, init);
  }, real);
  return { urls, restore: () => void (globalThis.fetch = real) };
}

/**
 * Holds every answer the widgets get until the returned release() is called, as a slow network
 * would: requests reach the server at once, their responses wait.
 */
export function holdAnswers(): () => void {
  const real = globalThis.fetch;
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  globalThis.fetch = Object.assign(async (input: any, init?: any) => {
    const answer = real(input, init);
    answer.catch(() => {}); // an aborted request rejects while held: handled when it is returned
    await gate;
    return answer;
  }, real);
  return () => {
    globalThis.fetch = real;
    open();
  };
}

export const en = (n: number) => new Intl.NumberFormat("en-US").format(n);
export const tick = () => new Promise((r) => setTimeout(r, 0));
