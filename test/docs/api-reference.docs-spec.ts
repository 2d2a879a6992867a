import { execFileSync } from 'node:child_process';
import { chromium, type Browser, type Page } from 'playwright-core';
import { basicAuthorization, createAccount, server, upsert, type TestAccount } from '../e2e/support';

/**
 * The API reference at `/docs`, opened in headless Chromium as a reader would: every operation of the
 * OpenAPI document is listed, every request-body example of the document is shown, "Try it out" with
 * the API key and secret under "Authorize" reaches this server and gets its answer, and the page loads
 * nothing from elsewhere and breaks none of its Content-Security-Policy.
 *
 * Chromium is the system's (`npm run test:docs` installs Debian's with scripts/browser/install-chromium.sh
 * and names it in GUIDEPOST_CHROMIUM); without one the spec fails, it is never skipped.
 */

interface MediaType {
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}

interface Operation {
  requestBody?: { content?: Record<string, MediaType> };
}

interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** Where Chromium is: GUIDEPOST_CHROMIUM, else `chromium` on the PATH; an error saying how to get it otherwise. */
function chromiumPath(): string {
  const named = process.env['GUIDEPOST_CHROMIUM'];
  if (named) return named;
  try {
    return execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error('Chromium was not found: run scripts/browser/install-chromium.sh (npm run test:docs does) or set GUIDEPOST_CHROMIUM');
  }
}

function operationsOf(document: OpenApiDocument): [method: string, path: string, operation: Operation][] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.has(method))
      .map(([method, operation]): [string, string, Operation] => [method, path, operation]),
  );
}

interface ShownExample {
  readonly mediaType: string;
  /** The name of one of the media type's `examples`; undefined for its single `example`. */
  readonly name?: string;
  readonly value: unknown;
}

/** Every request-body example of each operation that has any: each named one, or the single one. */
function requestBodyExamples(document: OpenApiDocument): { method: string; path: string; examples: ShownExample[] }[] {
  return operationsOf(document).flatMap(([method, path, operation]) => {
    const examples = Object.entries(operation.requestBody?.content ?? {}).flatMap(([mediaType, content]): ShownExample[] => {
      if (content.examples !== undefined) return Object.entries(content.examples).map(([name, { value }]) => ({ mediaType, name, value }));
      return content.example === undefined ? [] : [{ mediaType, value: content.example }];
    });
    return examples.length === 0 ? [] : [{ method, path, examples }];
  });
}

/** The block of one operation on the page. */
function operationBlock(page: Page, method: string, path: string) {
  return page.locator(`.opblock.opblock-${method}`).filter({ has: page.locator(`.opblock-summary-path[data-path="${path}"]`) });
}

describe('the API reference at /docs', () => {
  let browser: Browser;
  let page: Page;
  let document: OpenApiDocument;
  const foreignRequests: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const response = await fetch(`${server().baseUrl}/openapi.json`);
    expect(response.status).toBe(200);
    document = (await response.json()) as OpenApiDocument;

    browser = await chromium.launch({ executablePath: chromiumPath() });
    page = await browser.newPage();
    const origin = new URL(server().baseUrl).origin;
    page.on('request', (request) => {
      if (new URL(request.url()).origin !== origin && !request.url().startsWith('data:')) foreignRequests.push(request.url());
    });
    // A violation of the page's Content-Security-Policy is reported as a console error.
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
    page.on('pageerror', (error) => pageErrors.push(error.message));

    const answer = await page.goto(`${server().baseUrl}/docs`);
    expect(answer?.status()).toBe(200);
    await page.locator('.opblock').first().waitFor();
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('lists every operation of the OpenAPI document, and nothing else', async () => {
    const listed = await page.$$eval('.opblock', (blocks) =>
      blocks.map((block) => {
        const method = block.querySelector('.opblock-summary-method')?.textContent ?? '';
        const path = block.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '';
        return `${method.toUpperCase()} ${path}`;
      }),
    );
    const documented = operationsOf(document).map(([method, path]) => `${method.toUpperCase()} ${path}`);
    expect(documented.length).toBeGreaterThan(30);
    expect([...new Set(listed)].sort()).toEqual([...new Set(documented)].sort());
  });

  it('shows every request-body example of the document, as it is given', async () => {
    const operations = requestBodyExamples(document);
    expect(operations.length).toBeGreaterThan(0);
    const wrong: string[] = [];
    for (const { method, path, examples } of operations) {
      const block = operationBlock(page, method, path);
      await block.locator('.opblock-summary-control').click();
      const body = block.locator('.opblock-section-request-body');
      for (const { mediaType, name, value } of examples) {
        await body.getByLabel('Request content type').selectOption(mediaType);
        if (name !== undefined) await body.locator('.examples-select-element').selectOption(name);
        const shown = (await body.locator('.highlight-code').first().textContent()) ?? '';
        if (!showsExample(shown, value))
          wrong.push(`${method.toUpperCase()} ${path} (${mediaType} ${name ?? ''}) shows ${shown.slice(0, 200)}`);
      }
      await block.locator('.opblock-summary-control').click();
    }
    expect(wrong).toEqual([]);
  });

  it('calls this server from "Try it out" with the API key and secret given under "Authorize"', async () => {
    const account: TestAccount = await createAccount();
    await upsert(account, 'flows', [{ id: 'docs-flow', name: 'Flow listed through the reference' }]);

    await page.getByRole('button', { name: 'Authorize' }).first().click();
    await page.getByLabel('auth-basic-username').fill(account.key);
    await page.getByLabel('auth-basic-password').fill(account.secret);
    await page.getByRole('button', { name: 'Apply credentials' }).click();
    await page.getByRole('button', { name: 'Close' }).click();

    const listFlows = operationBlock(page, 'get', '/v2/accounts/{account_id}/flows');
    await listFlows.locator('.opblock-summary-control').click();
    await listFlows.getByRole('button', { name: 'Try it out' }).click();
    await listFlows.locator('tr[data-param-name="account_id"] input').fill(account.id);
    const [answer] = await Promise.all([
      page.waitForResponse((response) => response.url().endsWith(`/v2/accounts/${account.id}/flows`)),
      listFlows.getByRole('button', { name: 'Execute' }).click(),
    ]);

    expect(answer.url().startsWith(`${server().baseUrl}/`)).toBe(true);
    expect(await answer.request().headerValue('authorization')).toBe(basicAuthorization(account.key, account.secret));
    expect(answer.status()).toBe(200);
    const shown = listFlows.locator('.live-responses-table tbody .response');
    await expect(shown.locator('.response-col_status').textContent()).resolves.toContain('200');
    await expect(shown.locator('.response-col_description').textContent()).resolves.toContain('Flow listed through the reference');
  });

  it('loads nothing from elsewhere and breaks none of its Content-Security-Policy', () => {
    expect(foreignRequests).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});

/** Whether the text shown on the page is the example: the same JSON value, or the same text. */
function showsExample(shown: string, value: unknown): boolean {
  if (typeof value === 'string') return shown.trim() === value.trim();
  try {
    return JSON.stringify(JSON.parse(shown)) === JSON.stringify(value);
  } catch {
    return false;
  }
}
