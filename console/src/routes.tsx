// Which page a path shows (paths below /console).
import { match } from "./router";
import { AccountPage } from "./pages/account";
import { AlertsPage } from "./pages/alerts";
import { AnalyticsPage } from "./pages/analytics";
import { CampaignsPage } from "./pages/campaigns";
import { DomainsPage } from "./pages/domains";
import { ImportsPage } from "./pages/imports";
import { KeysPage } from "./pages/keys";
import { LinkPage } from "./pages/links/detail";
import { LinkFormPage } from "./pages/links/form";
import { LinksPage } from "./pages/links/list";
import { TrashPage } from "./pages/links/trash";
import { SettingsPage } from "./pages/settings";
import { SharesPage } from "./pages/shares";
import { TeamPage } from "./pages/team";
import { WebhookPage } from "./pages/webhooks/detail";
import { WebhooksPage } from "./pages/webhooks/list";

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
