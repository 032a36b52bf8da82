// Owns first-party storage (prefixed keys, JSON values, never throws) and random ids.

export type StorageName = "localStorage" | "sessionStorage";
export const LS = "localStorage";
export const SS = "sessionStorage";

export const load = (w: Window, s: StorageName, k: string): any => {
  try {
    return JSON.parse(w[s].getItem("svc_" + k)!);
  } catch {}
};

// Returns v, so a value can be stored and used in one expression.
export const save = <T>(w: Window, s: StorageName, k: string, v: T): T => {
  try {
    w[s].setItem("svc_" + k, JSON.stringify(v));
  } catch {}
  return v;
};

// crypto.randomUUID exists only in secure contexts (https, localhost).
export const uuid = (): string => crypto.randomUUID?.() || Math.random().toString(36).slice(2) + Date.now();
