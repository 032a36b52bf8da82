// The signed-in frame: skip link, header with the account (and a switcher when there are several),
// the navigation (a menu button on narrow screens), the theme, the user's settings and sign-out.
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { CONSOLE, post } from "./api";
import { navigate, useRoute } from "./router";
import { useSession } from "./session";
import type { Permission } from "./types";
import { useTheme, type ThemeChoice } from "./theme";
import { A } from "./ui/parts";

const NAV: [string, string, Permission][] = [
  ["/links", "Links", "links:read"],
  ["/analytics", "Analytics", "analytics:read"],
  ["/campaigns", "Campaigns", "links:read"],
  ["/shares", "Sharing", "links:read"],
  ["/imports", "Imports", "links:read"],
  ["/keys", "API keys", "keys:manage"],
  ["/webhooks", "Webhooks", "webhooks:read"],
  ["/alerts", "Reports and alerts", "webhooks:read"],
  ["/domains", "Domains", "domains:read"],
  ["/team", "Team", "team:read"],
  ["/account", "Account", "account:read"],
];

export function Shell({ children }: { children: ComponentChildren }) {
  const { session, can, refresh, signOut } = useSession();
  const route = useRoute();
  const { choice, choose } = useTheme();
  const [menuOpen, setMenuOpen] = useState(false);
  const current = (to: string) => route.path === to || route.path.startsWith(to + "/") || (to === "/links" && route.path === "/trash");

  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <A to="/links" class="brand">
          svc console
        </A>
        {session.accounts.length > 1 ? (
          <label class="account-switch">
            <span class="sr-only">Account</span>
            <select
              value={session.account.id}
              onChange={async (e) => {
                await post(`${CONSOLE}/session/account`, { account_id: (e.target as HTMLSelectElement).value });
                await refresh();
                navigate("/links");
              }}
            >
              {session.accounts.map((a) => (
                <option value={a.id}>
                  {a.name} ({a.role})
                </option>
              ))}
            </select>
          </label>
        ) : (
          <span class="account-name">
            {session.account.name} <span class="badge">{session.role}</span>
          </span>
        )}
        <button
          type="button"
          class="menu-button secondary"
          aria-expanded={menuOpen}
          aria-controls="nav"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
        <div class="user">
          <label>
            <span class="sr-only">Theme</span>
            <select value={choice} onChange={(e) => choose((e.target as HTMLSelectElement).value as ThemeChoice)}>
              <option value="system">System theme</option>
              <option value="light">Light</option>
              <option value="dark">Dark</option>
            </select>
          </label>
          <A to="/settings" aria-current={route.path === "/settings" ? "page" : undefined}>
            {session.user.email}
          </A>
          <button type="button" class="secondary" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <nav id="nav" class={menuOpen ? "nav open" : "nav"} aria-label="Console">
        <ul>
          {NAV.filter(([, , p]) => can(p)).map(([to, label]) => (
            <li>
              <A to={to} aria-current={current(to) ? "page" : undefined} onClick={() => setMenuOpen(false)}>
                {label}
              </A>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main">{children}</main>
    </div>
  );
}
