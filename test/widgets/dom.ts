// One happy-dom Window for every widget test file. Its DOM globals are put on globalThis when
// this module is first evaluated (the widget classes extend HTMLElement at import time) and by
// each file's beforeAll, and taken off again in its afterAll, so test files of the server that run
// in the same Bun process never see a `document`.
import { afterAll, beforeAll } from "bun:test";
import { Window } from "happy-dom";

export const win = new Window({ url: "http://127.0.0.1/", settings: { disableCSSFileLoading: true } });

const NAMES = ["HTMLElement", "customElements", "document", "CustomEvent", "location", "navigator"] as const;
const saved = new Map<string, PropertyDescriptor | undefined>();

export function installDom(): void {
  for (const name of NAMES) {
    if (!saved.has(name)) saved.set(name, Object.getOwnPropertyDescriptor(globalThis, name));
    Object.defineProperty(globalThis, name, { value: (win as any)[name], configurable: true, writable: true });
  }
}

export function uninstallDom(): void {
  for (const [name, desc] of saved) {
    if (desc) Object.defineProperty(globalThis, name, desc);
    else delete (globalThis as any)[name];
  }
  saved.clear();
}

/** Call at the top of a test file. */
export function useDom(): void {
  beforeAll(installDom);
  afterAll(uninstallDom);
}

installDom();
