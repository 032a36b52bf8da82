// dashboard.html in the test window: its body mounted and started with an in-memory storage.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startDashboard } from "../../dashboard-widgets/src/dashboard";
import { win } from "./view";

export const page = readFileSync(join(import.meta.dir, "../../dashboard-widgets/src/dashboard.html"), "utf8");
const body = page.slice(page.indexOf("<body>") + 6, page.indexOf("</body>"));

export function memoryStorage(init: Record<string, string> = {}): Storage {
  const m = new Map(Object.entries(init));
  return {
    get length() {
      return m.size;
    },
    clear: () => m.clear(),
    getItem: (k) => m.get(k) ?? null,
    key: (i) => [...m.keys()][i] ?? null,
    removeItem: (k) => void m.delete(k),
    setItem: (k, v) => void m.set(k, String(v)),
  };
}

export function openDashboard(apiBase: string, storage = memoryStorage()) {
  win.document.body.innerHTML = body;
  const d = win.document;
  const $ = (sel: string) => d.querySelector(sel) as any;
  const dash = startDashboard(d as unknown as Document, { storage, apiBase });
  const change = (sel: string, value: string) => {
    $(sel).value = value;
    $(sel).dispatchEvent(new win.Event("change", { bubbles: true }));
  };
  const widgets = () => [...d.querySelectorAll("#widgets > *")] as any[];
  return { d, $, dash, storage, change, widgets };
}
