// The signed-in session, shared through context: who, which account, the role's permissions.
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Permission, Session } from "./types";

export interface SessionState {
  session: Session;
  can(permission: Permission): boolean;
  /** Reloads the session (after switching accounts or changing roles). */
  refresh(): Promise<void>;
  signOut(): Promise<void>;
}

export const SessionContext = createContext<SessionState | null>(null);

export function useSession(): SessionState {
  const s = useContext(SessionContext);
  if (!s) throw new Error("useSession outside a signed-in console");
  return s;
}
