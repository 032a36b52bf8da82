// A stand-in for React Native's AsyncStorage, for the SDK's storage tests.
/** Shaped like @react-native-async-storage/async-storage: strings only, every call answered on a later turn. */
export function asyncStorageLike(items = new Map<string, string>()) {
  const later = <T>(v: T) => new Promise<T>((resolve) => setTimeout(() => resolve(v), 1));
  return {
    items,
    getItem: (key: string, _callback?: (error?: Error | null, result?: string | null) => void) => later(items.get(key) ?? null),
    setItem: (key: string, value: string, _callback?: (error?: Error | null) => void) => {
      if (typeof value !== "string") throw new TypeError("AsyncStorage stores strings");
      items.set(key, value);
      return later(undefined);
    },
    removeItem: (key: string) => {
      items.delete(key);
      return later(undefined);
    },
    getAllKeys: () => later([...items.keys()]),
    clear: () => {
      items.clear();
      return later(undefined);
    },
  };
}
