// Where the queue keeps unsent batches. Three string operations, all asynchronous: React Native's
// AsyncStorage (`@react-native-async-storage/async-storage`) has exactly these and can be passed as
// it is; `fileStorage` (the `/file-storage` entry point) serves Node and Bun; memory is the default.

export interface EventStorage {
  getItem(key: string): Promise<string | null>;
  setItem(key: string, value: string): Promise<void>;
  removeItem(key: string): Promise<void>;
}

/** Keeps everything in this process only: unsent events are lost when it ends. */
export function memoryStorage(): EventStorage {
  const items = new Map<string, string>();
  return {
    async getItem(key) {
      return items.get(key) ?? null;
    },
    async setItem(key, value) {
      items.set(key, value);
    },
    async removeItem(key) {
      items.delete(key);
    },
  };
}
