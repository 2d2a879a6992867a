/**
 * The API reference page at `/docs`: Swagger UI (the `swagger-ui-dist` package, served from the
 * installed package by `ApiReferenceController`) rendering this deployment's `/openapi.json`.
 */

/** Where the page and its assets are served. */
export const API_REFERENCE_PATH = '/docs';

/** The script that starts Swagger UI; served as a file so that the page needs no inline script. */
export const START_SCRIPT_NAME = 'api-reference.js';

/**
 * Only this origin's scripts, styles, fonts and requests: the page loads nothing from elsewhere and
 * runs no inline or evaluated code. Swagger UI draws its icons as inline SVG, hence `data:` images.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const PAGE_HTML = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Guidepost API reference</title>
    <link rel="stylesheet" href="${API_REFERENCE_PATH}/swagger-ui.css">
    <link rel="icon" type="image/png" href="${API_REFERENCE_PATH}/favicon-32x32.png">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${API_REFERENCE_PATH}/swagger-ui-bundle.js"></script>
    <script src="${API_REFERENCE_PATH}/${START_SCRIPT_NAME}"></script>
  </body>
</html>
`;

/**
 * Loads the document and renders it. This deployment's own origin is put first among the document's
 * servers (whose addresses are placeholders), so that "Try it out" calls the server that shows the
 * page, with the key and secret given under "Authorize" as HTTP Basic credentials. No validator badge:
 * it would send the document to validator.swagger.io.
 */
export const START_SCRIPT = `'use strict';

// Swagger UI shows a string example of any media type whose name holds "json" as one JSON string
// literal (swagger-ui#5342): an NDJSON example would read "\\"user-1\\"\\n..." and "Try it out" would
// send that literal. NDJSON samples are made as for text, so they show (and are sent) as their lines.
function ndjsonSamplesAsText(system) {
  const jsonSample = system.fn.jsonSchema202012.getJsonSampleSchema;
  return {
    fn: {
      jsonSchema202012: {
        getJsonSampleSchema: (schema, config, contentType, example) =>
          jsonSample(schema, config, /ndjson/i.test(contentType) ? 'text/plain' : contentType, example),
      },
    },
  };
}

fetch('/openapi.json')
  .then((response) => {
    if (!response.ok) throw new Error('GET /openapi.json answered ' + response.status);
    return response.json();
  })
  .then((openapi) => {
    openapi.servers = [{ url: window.location.origin, description: 'This deployment' }].concat(openapi.servers || []);
    window.ui = SwaggerUIBundle({
      spec: openapi,
      dom_id: '#swagger-ui',
      deepLinking: true,
      validatorUrl: null,
      displayRequestDuration: true,
      showExtensions: true,
      plugins: [ndjsonSamplesAsText],
    });
  })
  .catch((error) => {
    document.getElementById('swagger-ui').textContent = 'The API reference could not be loaded: ' + error.message;
  });
`;
