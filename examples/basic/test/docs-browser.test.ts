/**
 * The example app's `/docs` (Swagger UI) and `/redoc` (ReDoc) pages in a real headless Chromium,
 * served by fnapi itself: every operation is shown, nothing fails in the page, no request leaves
 * loopback, and Swagger UI's "Try it out" reaches the endpoint.
 *
 * Without Chromium these tests are skipped with a warning, unless FNAPI_REQUIRE_SERVICES=1.
 */
import type { API } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { chromiumAvailable, isLoopbackUrl, launchChromium, type OpenedPage, openPage } from '@fnapi/test-support';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp as createExampleApp } from '../src/app.js';

type Doc = { paths: Record<string, Record<string, { summary?: string; operationId?: string }>> };

/** `METHOD path` of every operation in the document, sorted. */
function operationKeys(doc: Doc): string[] {
  return Object.entries(doc.paths)
    .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
    .sort();
}

const available = chromiumAvailable('the docs pages of the example app');

describe.skipIf(!available)('docs pages of the example app in headless Chromium', () => {
  let app: API;
  let client: TestClient;
  let browser: Browser;
  let doc: Doc;

  beforeAll(async () => {
    app = createExampleApp({ logger: false });
    client = await TestClient.start(app);
    doc = (await client.get('/openapi.json')).json<Doc>();
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await client?.close();
  });

  async function open(path: string): Promise<OpenedPage> {
    const opened = await openPage(browser, `${client.url}${path}`);
    expect(opened.problems).toEqual([]);
    return opened;
  }

  function expectClean({ problems, requests }: OpenedPage): void {
    expect(problems).toEqual([]);
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.filter((url) => !isLoopbackUrl(url))).toEqual([]);
  }

  const operations = () =>
    operationKeys(doc).map((key) => {
      const [method, path] = key.split(' ') as [string, string];
      return { method, path, summary: doc.paths[path]![method.toLowerCase()]!.summary! };
    });

  it('the example app documents the operations the pages should show', () => {
    expect(operations().map((op) => `${op.method} ${op.path}`)).toEqual([
      'GET /hello/{name}',
      'GET /search',
      'GET /users/{user_id}/posts/{post_id}',
      'POST /echo',
      'POST /users',
    ]);
    for (const op of operations()) expect(op.summary, `${op.method} ${op.path}`).toBeTruthy();
  });

  it('Swagger UI shows every operation and "Try it out" calls GET /hello/{name}', async () => {
    const opened = await open('/docs');
    const { page } = opened;
    await page.locator('.opblock').first().waitFor();
    await expect.poll(() => page.title()).toBe('fnapi example - Swagger UI');

    const shown = await page
      .locator('.opblock-summary-path')
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-path') ?? (node.textContent ?? '').replace(/\u200b/g, '')));
    const methods = await page.locator('.opblock-summary-method').allTextContents();
    expect(shown.map((path, i) => `${methods[i]!.trim().toUpperCase()} ${path}`).sort()).toEqual(
      operations().map((op) => `${op.method} ${op.path}`),
    );

    const hello = page.locator('.opblock-get', { has: page.locator('.opblock-summary-path[data-path="/hello/{name}"]') });
    await hello.locator('.opblock-summary').click();
    await hello.getByRole('button', { name: 'Try it out' }).click();
    await hello.locator('input[placeholder="name"]').fill('Ada');
    await hello.getByRole('button', { name: 'Execute' }).click();
    const live = hello.locator('.live-responses-table');
    await expect.poll(() => live.locator('.response .response-col_status').first().textContent()).toContain('200');
    await expect
      .poll(() => live.locator('.response-col_description .microlight').first().textContent())
      .toContain('"message": "Hello, Ada!"');
    expect(opened.requests).toContain(`${client.url}/hello/Ada`);

    expectClean(opened);
    await page.close();
  });

  it('ReDoc shows every operation', async () => {
    const opened = await open('/redoc');
    const { page } = opened;
    await page.locator('h2', { hasText: 'Say hello' }).waitFor();
    await expect.poll(() => page.title()).toBe('fnapi example - ReDoc');

    for (const op of operations()) {
      // Each operation has its heading (the summary) and its method + path in the endpoint box.
      await page.locator('h2', { hasText: op.summary }).first().waitFor();
      const endpoint = page.locator('button', { hasText: op.path }).filter({ has: page.locator(`.http-verb.${op.method.toLowerCase()}`) });
      expect(await endpoint.count(), `${op.method} ${op.path}`).toBeGreaterThan(0);
    }
    // Search runs in a worker built from a blob: URL; it only answers if that worker started.
    await page.locator('input[placeholder="Search..."]').fill('hello');
    await page.locator('[data-role="search:results"] li', { hasText: 'Say hello' }).first().waitFor();

    expectClean(opened);
    await page.close();
  });

  it("Scalar (docsUi: 'scalar') lists every operation and its client's request to GET /hello/{name} gets a 200", async () => {
    const scalar = await TestClient.start(createExampleApp({ logger: false, docsUi: 'scalar' }));
    try {
      const opened = await openPage(browser, `${scalar.url}/docs`);
      const { page } = opened;
      await expect.poll(() => page.title()).toBe('fnapi example - API Reference');
      // The sidebar lists every operation under its tag (groups after the first start closed).
      await page
        .getByRole('button', { name: /Group - greetings/ })
        .first()
        .waitFor();
      for (const tag of ['users', 'search', 'echo']) await page.getByRole('button', { name: `Open Group - ${tag}` }).dispatchEvent('click');
      for (const op of operations()) await page.getByText(op.summary, { exact: true }).first().waitFor({ timeout: 5000 });

      await page
        .getByRole('button', { name: /Test Request.*\/hello\/\{name\}/ })
        .first()
        .click();
      const name = page.locator('[contenteditable="true"][data-placeholder="Value"]').first();
      await name.click();
      await page.keyboard.type('Ada');
      const answered = page.waitForResponse((response) => response.url() === `${scalar.url}/hello/Ada`);
      await page
        .getByRole('button', { name: /Send Request/ })
        .first()
        .click();
      const response = await answered;
      expect(response.status()).toBe(200);
      expect(await response.json()).toEqual({ message: 'Hello, Ada!' });

      expect(opened.problems).toEqual([]);
      expect(opened.requests.filter((url) => !isLoopbackUrl(url))).toEqual([]);
      await page.close();
    } finally {
      await scalar.close();
    }
  });
});
