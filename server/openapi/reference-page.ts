// The reference page (/public-api/v1/docs): Swagger UI from the swagger-ui-dist package, served by
// this process (no CDN: self-hosted installs often have no internet), reading the document at /docs/json.
import { dirname, join } from "node:path";

const DIST = dirname(require.resolve("swagger-ui-dist/package.json"));

/** Files of the page under `<docs>/`: name → [file in swagger-ui-dist, content type]. */
export const PAGE_ASSETS: Record<string, [string, string]> = {
  "swagger-ui.css": ["swagger-ui.css", "text/css; charset=utf-8"],
  "swagger-ui-bundle.js": ["swagger-ui-bundle.js", "text/javascript; charset=utf-8"],
  "favicon.png": ["favicon-32x32.png", "image/png"],
};
export const assetFile = (name: string) => join(DIST, PAGE_ASSETS[name][0]);

// Scripts and styles come only from this origin; Swagger UI sets inline styles on its elements.
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
  "font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function referencePage(docsPath: string, title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" type="image/png" href="${docsPath}/favicon.png">
<link rel="stylesheet" href="${docsPath}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${docsPath}/swagger-ui-bundle.js"></script>
<script src="${docsPath}/init.js"></script>
</body>
</html>
`;
}

/** Starts Swagger UI on the document; "Try it out" sends real requests with the key given under Authorize. */
export function initScript(docsPath: string): string {
  const options = {
    url: `${docsPath}/json`,
    dom_id: "#swagger-ui",
    deepLinking: true,
    displayOperationId: true,
    displayRequestDuration: true,
    filter: true,
    validatorUrl: null,
    persistAuthorization: false,
    tryItOutEnabled: false,
    defaultModelsExpandDepth: 0,
  };
  return `window.ui = SwaggerUIBundle(Object.assign(${JSON.stringify(options)}, { presets: [SwaggerUIBundle.presets.apis], layout: "BaseLayout" }));\n`;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
