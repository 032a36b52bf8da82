// Random ids: idempotency keys, session ids and the visitor id of the data-link-id fallback.
// crypto.randomUUID exists only in secure contexts (https, localhost).
export const uuid = (): string => crypto.randomUUID?.() || "" + Math.random() + Date.now();
