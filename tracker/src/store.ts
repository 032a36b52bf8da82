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
      // Storage items are also its properties: s.svc_a is s.getItem("svc_a") (undefined when absent).
      const s: any = w[session ? "sessionStorage" : "localStorage"];
      k = "svc_" + k;
      v == null ? (v = JSON.parse(s[k])) : (s[k] = JSON.stringify(v));
    } catch {}
    return v;
  };

export type Store = ReturnType<typeof store>;

// crypto.randomUUID exists only in secure contexts (https, localhost).
export const uuid = (): string => crypto.randomUUID?.() || "" + Math.random() + Date.now();
