import { expectProblem, server } from './support';

/**
 * The files of the API reference at `/docs`, over HTTP in both shapes; what the page does in a browser
 * is test/docs (headless Chromium, `npm run test:docs`).
 */
describe('the API reference at /docs', () => {
  it('serves the page without credentials, under a Content-Security-Policy allowing this origin only', async () => {
    const response = await fetch(`${server().baseUrl}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toContain('unsafe');
    const page = await response.text();
    // Every script and style the page names is this server's.
    const references = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(references.length).toBeGreaterThan(2);
    for (const reference of references) {
      expect({ reference, local: reference.startsWith('/docs/') }).toEqual({ reference, local: true });
      expect({ reference, status: (await fetch(`${server().baseUrl}${reference}`)).status }).toEqual({ reference, status: 200 });
    }
  });

  it('serves Swagger UI from the installed package, with the content type of each file', async () => {
    const script = await fetch(`${server().baseUrl}/docs/swagger-ui-bundle.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await script.text()).toContain('SwaggerUIBundle');
    const style = await fetch(`${server().baseUrl}/docs/swagger-ui.css`);
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
    await style.arrayBuffer();
  });

  it('answers any other file with 404 Problem Details, package files and paths outside it included', async () => {
    for (const path of ['/docs/index.html', '/docs/package.json', '/docs/..%2Fpackage.json', '/docs/swagger-ui-bundle.js.map']) {
      await expectProblem(await fetch(`${server().baseUrl}${path}`), 404);
    }
  });
});
