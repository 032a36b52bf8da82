// What other features may use of the links feature.
export { createImportedLinks, forgetImportedCodes, raiseImportedClicks, type ImportedLinkInput } from "./imported";
export type { LinksDeps } from "./service";
