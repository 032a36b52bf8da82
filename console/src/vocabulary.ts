// One name and one definition for each figure the console shows (docs/console.md "Figures"). Pages use
// these instead of their own words, so "Clicks" means the same thing on every page.
export const TERMS = {
  clicks: {
    name: "Clicks",
    definition: "Times people opened the link. Bots (crawlers, link previews, scripts) are not included.",
  },
  botClicks: {
    name: "Bot clicks",
    definition: "Times crawlers, link previews and scripts opened the link. Not included in Clicks.",
  },
  allClicks: {
    name: "All clicks",
    definition: "Clicks and bot clicks together: what the monthly click budget counts.",
  },
  visitors: {
    name: "Visitors",
    definition: "Distinct people who clicked in the range. Bots are not included.",
  },
  trackedVisitors: {
    name: "Tracked visitors",
    definition: "Distinct visitors the tracker script reported on your site (journeys), which can differ from the people who clicked.",
  },
  linksWithClicks: {
    name: "Links with clicks",
    definition: "Links clicked at least once in the range.",
  },
  conversionRate: {
    name: "Conversion rate",
    definition: "Tracked visitors who converted, as a share of the tracked visitors (the conversions report).",
  },
  clickConversionRate: {
    name: "Click conversion rate",
    definition: "Converters, as a share of the visitors who clicked (link stats and the numbers per variant, rule and source).",
  },
} as const;

export const CONVERSION_TRACKING_OFF = "Conversion tracking is off for this link. Turn it on in Edit to count conversions.";
