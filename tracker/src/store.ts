// Owns first-party storage (prefixed keys, JSON values, never throws) and random ids.

/**
 * store(w)(session, key) reads `svc_<key>` from localStorage (session 0) or sessionStorage (1);
 * store(w)(session, key, value) writes it and returns value, so that a value can be stored and used
 * in one expression. Storage can be missing or refuse (private modes, quotas): then reads give
 * undefined and writes are skipped.
 */
export const store =
  (w: Window) =>
  (session: 0 | 1, k: string, v?: any): any => {
    try {
      const s = w[session ? "sessionStorage" : "localStorage"];
      v === undefined ? (v = JSON.parse(s.getItem("svc_" + k)!)) : s.setItem("svc_" + k, JSON.stringify(v));
    } catch {}
    return v;
  };

export type Store = ReturnType<typeof store>;

// crypto.randomUUID exists only in secure contexts (https, localhost).
export const uuid = (): string => crypto.randomUUID?.() || Math.random().toString(36).slice(2) + Date.now();
