// What other features may read of journey data (the conversion reports and the console's account page):
// the visitor counts and the month's stored usage. The rest of the journey folder (service, repository,
// query modules) is its own business; which links a report covers is the links feature's answer
// (server/reports/scope.ts).
export { readJourneyUsage } from "./repository";
export { countJourneyVisitors, countJourneyVisitorsByLink } from "./visitors-query";
