// The account's analytics: the dashboard widgets, called with the session (no key to paste).
import { useState } from "preact/hooks";
import { useSession } from "../session";
import { useTheme } from "../theme";
import { PageHeader, Select } from "../ui/parts";

export function AnalyticsPage() {
  const { can } = useSession();
  const { theme } = useTheme();
  const [days, setDays] = useState("30");
  const [bots, setBots] = useState("real");
  const period = `${Math.min(Number(days), 90)}d`;
  const common = { days, "bot-filter": bots, theme };
  return (
    <>
      <PageHeader title="Analytics" />
      <form class="filters compact" aria-label="Range" onSubmit={(e) => e.preventDefault()}>
        <Select label="Range" value={days} onChange={(e) => setDays((e.target as HTMLSelectElement).value)}>
          <option value="7">Last 7 days</option>
          <option value="30">Last 30 days</option>
          <option value="90">Last 90 days</option>
          <option value="365">Last 365 days</option>
        </Select>
        <Select label="Traffic" value={bots} onChange={(e) => setBots((e.target as HTMLSelectElement).value)}>
          <option value="real">People</option>
          <option value="bot">Bots</option>
          <option value="all">Everything</option>
        </Select>
      </form>
      <div class="widgets" id="analytics-widgets">
        <svc-realtime id="w-realtime" theme={theme} />
        <svc-summary id="w-summary" {...common} />
        <svc-timeseries id="w-timeseries" {...common} />
        <div class="widgets two">
          <svc-breakdown id="w-geo" dimension="geo" {...common} />
          <svc-breakdown id="w-referrers" dimension="referrers" {...common} />
          <svc-breakdown id="w-devices" dimension="devices" {...common} />
          <svc-breakdown id="w-hourly" dimension="hourly" {...common} />
        </div>
        {can("conversions:read") && <svc-conversions id="w-conversions" period={period} theme={theme} />}
        {can("conversions:read") && <svc-attribution id="w-attribution" period={period} controls="" theme={theme} />}
      </div>
    </>
  );
}
