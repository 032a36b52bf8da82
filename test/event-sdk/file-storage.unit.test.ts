// The SDK's storages on their own: the file storage's writes and clean-up, and React Native's
// AsyncStorage fitting the storage interface (storage.test.ts has them under a real client and server).
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { EventStorage } from "../../event-sdk/src/index";
import { fileStorage } from "../../event-sdk/src/file-storage";
import { asyncStorageLike } from "./async-storage-like";
import { useTempDirs } from "../helpers/temp-dirs";

const tempDir = useTempDirs("svc-sdk-store-");

describe("file storage", () => {
  test("values are replaced whole; a missing key reads null; temporary files a crash left are removed", async () => {
    const dir = tempDir();
    await Bun.write(join(dir, "x.json.1.abc.tmp"), "half");
    const store = fileStorage(dir);
    expect(await store.getItem("svc:state")).toBeNull();
    await store.setItem("svc:state", "one");
    await store.setItem("svc:state", "two");
    expect(await store.getItem("svc:state")).toBe("two");
    await store.removeItem("svc:state");
    await store.removeItem("svc:state");
    expect(await store.getItem("svc:state")).toBeNull();
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe("AsyncStorage", () => {
  test("React Native's AsyncStorage fits the storage interface as it is (versions 1 to 3)", () => {
    // The methods the SDK uses, as @react-native-async-storage/async-storage declares them: 3.x
    // (lib/typescript/AsyncStorage.d.ts) and 1.x/2.x, whose methods also take an optional callback.
    interface AsyncStorageV3 {
      getItem(key: string): Promise<string | null>;
      setItem(key: string, value: string): Promise<void>;
      removeItem(key: string): Promise<void>;
      getAllKeys(): Promise<string[]>;
    }
    interface AsyncStorageV2 {
      getItem: (key: string, callback?: (error?: Error | null, result?: string | null) => void) => Promise<string | null>;
      setItem: (key: string, value: string, callback?: (error?: Error | null) => void) => Promise<void>;
      removeItem: (key: string, callback?: (error?: Error | null) => void) => Promise<void>;
    }
    const fits = (_storage: EventStorage) => true;
    expect(fits(asyncStorageLike() satisfies AsyncStorageV3 as AsyncStorageV3)).toBe(true);
    expect(fits(asyncStorageLike() satisfies AsyncStorageV2 as AsyncStorageV2)).toBe(true);
  });
});
