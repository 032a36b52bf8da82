// A link's status as the redirect applies it (the API's `status`): Active, Inactive, Expired, Limit reached.
import type { Link } from "../../types";

export const STATUS_NAMES: Record<Link["status"], string> = {
  active: "Active",
  inactive: "Inactive",
  expired: "Expired",
  limit_reached: "Limit reached",
};

const HINTS: Record<Link["status"], string> = {
  active: "The short link redirects.",
  inactive: "Switched off: the short link answers 404.",
  expired: "Past its expiry: visitors get the after-expiry page or URL.",
  limit_reached: "Its click limit is used up: visitors get the limit page or URL.",
};

export const StatusBadge = ({ link }: { link: Pick<Link, "status"> }) => (
  <span class={`badge ${link.status === "active" ? "ok" : link.status}`} title={HINTS[link.status]} data-status={link.status}>
    {STATUS_NAMES[link.status]}
  </span>
);
