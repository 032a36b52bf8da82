// Which page a path shows (paths below /console). Every page is its own chunk, loaded on first use.
import { lazyPage } from "./lazy";
import { match } from "./router";

const AccountPage = lazyPage(() => import("./pages/account").then((m) => m.AccountPage));
const AlertsPage = lazyPage(() => import("./pages/alerts").then((m) => m.AlertsPage));
const AnalyticsPage = lazyPage(() => import("./pages/analytics").then((m) => m.AnalyticsPage));
const CampaignsPage = lazyPage(() => import("./pages/campaigns").then((m) => m.CampaignsPage));
const DomainsPage = lazyPage(() => import("./pages/domains").then((m) => m.DomainsPage));
const ImportsPage = lazyPage(() => import("./pages/imports").then((m) => m.ImportsPage));
const KeysPage = lazyPage(() => import("./pages/keys").then((m) => m.KeysPage));
const LinkPage = lazyPage(() => import("./pages/links/detail").then((m) => m.LinkPage));
const LinkFormPage = lazyPage(() => import("./pages/links/form").then((m) => m.LinkFormPage));
const LinksPage = lazyPage(() => import("./pages/links/list").then((m) => m.LinksPage));
const TrashPage = lazyPage(() => import("./pages/links/trash").then((m) => m.TrashPage));
const SettingsPage = lazyPage(() => import("./pages/settings").then((m) => m.SettingsPage));
const SharesPage = lazyPage(() => import("./pages/shares").then((m) => m.SharesPage));
const TeamPage = lazyPage(() => import("./pages/team").then((m) => m.TeamPage));
const WebhookPage = lazyPage(() => import("./pages/webhooks/detail").then((m) => m.WebhookPage));
const WebhooksPage = lazyPage(() => import("./pages/webhooks/list").then((m) => m.WebhooksPage));

export function pageFor(path: string, query: URLSearchParams) {
  let p: Record<string, string> | null;
  if (path === "/links/new") return <LinkFormPage />;
  if ((p = match("/links/:id/edit", path))) return <LinkFormPage key={p.id} id={p.id} />;
  if ((p = match("/links/:id", path))) return <LinkPage key={p.id} id={p.id} />;
  if ((p = match("/webhooks/:id", path))) return <WebhookPage key={p.id} id={p.id} />;
  switch (path) {
    case "/trash":
      return <TrashPage />;
    case "/analytics":
      return <AnalyticsPage />;
    case "/campaigns":
      return <CampaignsPage />;
    case "/shares":
      return <SharesPage />;
    case "/imports":
      return <ImportsPage />;
    case "/alerts":
      return <AlertsPage />;
    case "/keys":
      return <KeysPage />;
    case "/webhooks":
      return <WebhooksPage />;
    case "/domains":
      return <DomainsPage />;
    case "/team":
      return <TeamPage />;
    case "/account":
      return <AccountPage />;
    case "/settings":
      return <SettingsPage />;
    default:
      return <LinksPage query={query} />;
  }
}
