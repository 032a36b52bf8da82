// Destination URL rules and how a link's public short URL is formed.
import { validationError } from "../errors";

export const MAX_URL_LENGTH = 2048;

/** http/https only, at most 2,048 characters, no credentials. Returns the normalized URL. */
export function validateDestination(raw: string, field = "body.url"): string {
  if (raw.length > MAX_URL_LENGTH) throw validationError(field, `must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw validationError(field, "must be an absolute http or https URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw validationError(field, "must use http or https");
  if (url.username || url.password) throw validationError(field, "must not contain credentials");
  if (!url.hostname) throw validationError(field, "must have a host");
  return url.toString();
}

export const shortUrl = (baseUrl: string, code: string, domainName?: string | null) =>
  domainName ? `https://${domainName}/${code}` : `${baseUrl}/${code}`;
