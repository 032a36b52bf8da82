// Loading state for a page's data: loading, loaded, or failed with the API's error; `reload` fetches again.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "../api";

export type Async<T> =
  | { state: "loading"; data?: T; error?: undefined; reload: () => void }
  | { state: "ok"; data: T; error?: undefined; reload: () => void }
  | { state: "error"; data?: T; error: ApiError; reload: () => void };

export function useAsync<T>(load: () => Promise<T>, deps: unknown[]): Async<T> {
  const [value, setValue] = useState<{ state: "loading" | "ok" | "error"; data?: T; error?: ApiError }>({ state: "loading" });
  const seq = useRef(0);
  const run = useCallback(() => {
    const mine = ++seq.current;
    setValue((v) => ({ state: "loading", data: v.data }));
    load().then(
      (data) => mine === seq.current && setValue({ state: "ok", data }),
      (e) => mine === seq.current && setValue((v) => ({ state: "error", data: v.data, error: toApiError(e) })),
    );
  }, deps);
  useEffect(run, [run]);
  return { ...value, reload: run } as Async<T>;
}

export const toApiError = (e: unknown) =>
  e instanceof ApiError ? e : new ApiError(0, "ERROR", e instanceof Error ? e.message : String(e));

/** A form's submit: runs `action`, keeps its error for the fields and the live region, and a busy flag. */
export function useSubmit<A extends unknown[]>(action: (...args: A) => Promise<unknown>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const submit = async (...args: A) => {
    setBusy(true);
    setError(null);
    try {
      await action(...args);
      return true;
    } catch (e) {
      setError(toApiError(e));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, submit, setError };
}
