// What the users feature shares with the others, made once per runtime: the console sessions (cookie,
// lookup, CSRF tokens), which the auth plugin reads for the `session` route option.
import type { SharedFrom } from "../feature";
import { createSessionStore, type SessionStore } from "./sessions";

export interface UserShared {
  sessions: SessionStore;
}

export function openUserShared({ config, pg }: SharedFrom): UserShared {
  const sessions = createSessionStore(pg, {
    appSecret: config.appSecret,
    idleMs: config.sessionIdleMs,
    maxMs: config.sessionMaxMs,
    secure: config.baseUrl.startsWith("https://"),
  });
  return { sessions };
}
