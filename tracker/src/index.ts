// Script entry (dist/t.js): reads data-* from its own <script>, starts the tracker and replaces
// the window.svc stub, replaying calls queued in svc.q before the script loaded.
import { createTracker, type Tracker } from "./tracker";

type Svc = ((m: string, ...a: unknown[]) => void) & Partial<Tracker> & { q?: ArrayLike<unknown>[] };

const w = window as unknown as { svc?: Svc };
// A second copy of the script (e.g. also added by a tag manager) must not track twice.
if (!w.svc?.track) {
  // A classic <script> (defer or async) is required: module scripts have no currentScript.
  const s = document.currentScript as HTMLScriptElement;
  const d = s.dataset;
  // t.js reads no other option (see SVC_SCRIPT in tracker.ts): other data-* attributes are ignored.
  const t = createTracker({ ...(d as any), api: d.api || new URL(s.src).origin + "/public-api/v1", respectDnt: "respectDnt" in d }) as any;
  const q = w.svc?.q;
  w.svc = Object.assign((m: string, ...a: unknown[]) => t[m]?.(...a), t);
  q?.map((a) => w.svc!(...(a as [string])));
}
