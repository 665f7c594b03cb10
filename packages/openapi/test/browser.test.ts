import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromiumAvailable, launchChromium } from '@fnapi/test-support';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from '@fnapi/validation';
import { buildDocument, docsRoutes } from '../src/index.js';
import { http } from './fixtures.js';

// The pages rendered in a real headless Chromium, served by a bare node:http server (no core):
// checks that the CSP lets Swagger UI and ReDoc run from the local assets. Skipped loudly without
// Chromium, and failing instead under FNAPI_REQUIRE_SERVICES=1.
const available = chromiumAvailable('the docs pages served by a bare node:http server');

const document = buildDocument(
  { title: 'Browser check', version: '1.0.0' },
  [
    {
      method: 'GET',
      path: '/hello/{name}',
      operationId: 'hello',
      summary: 'Say hello',
      tags: ['greetings'],
      plan: { method: 'GET', pathParams: ['name'], params: { name: z.string() } },
      response: z.object({ message: z.string() }),
      statusCode: 200,
    },
  ],
  { http },
);

describe.skipIf(!available)('docs pages in headless Chromium', () => {
  let server: Server;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    const routes = new Map(
      [
        ...docsRoutes({ title: 'Browser check', openapiUrl: '/openapi.json', docsUrl: '/docs', redocUrl: '/redoc' }),
        // The Scalar page (and its assets) beside them.
        ...docsRoutes({ title: 'Browser check', openapiUrl: '/openapi.json', docsUrl: '/scalar', redocUrl: null, ui: 'scalar' }),
      ].map((r) => [r.path, r]),
    );
    server = createServer(async (req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const route = routes.get(url.pathname);
      if (route) {
        res.writeHead(200, { 'content-type': route.contentType, ...route.headers });
        res.end(await route.body());
      } else if (url.pathname === '/openapi.json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(document));
      } else if (url.pathname.startsWith('/hello/')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: `Hello, ${decodeURIComponent(url.pathname.slice(7))}!` }));
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  async function open(path: string): Promise<{ page: Page; problems: string[] }> {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(String(error)));
    page.on('requestfailed', (request) => problems.push(`failed: ${request.url()}`));
    page.on('request', (request) => {
      if (!request.url().startsWith(base) && !request.url().startsWith('blob:') && !request.url().startsWith('data:')) {
        problems.push(`external request: ${request.url()}`);
      }
    });
    await page.goto(`${base}${path}`);
    return { page, problems };
  }

  it('renders Swagger UI and runs "Try it out" against the same origin', async () => {
    const { page, problems } = await open('/docs');
    await page.locator('.opblock-summary-path', { hasText: '/hello/{name}' }).click();
    await page.getByRole('button', { name: 'Try it out' }).click();
    await page.locator('input[placeholder="name"]').fill('Ada');
    await page.getByRole('button', { name: 'Execute' }).click();
    await expect.poll(() => page.locator('.response-col_description .microlight').first().textContent()).toContain('Hello, Ada!');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('renders Scalar from the local assets, lists the operations and sends a request that gets 200', async () => {
    const { page, problems } = await open('/scalar');
    await expect.poll(() => page.title()).toBe('Browser check - API Reference');
    // The operation is listed in the sidebar and described on the page.
    await page.locator('text=Say hello').first().waitFor();
    await page
      .getByRole('button', { name: /Test Request/ })
      .first()
      .click();
    const value = page.locator('[contenteditable="true"][data-placeholder="Value"]').first();
    await value.click();
    await page.keyboard.type('Ada');
    const answered = page.waitForResponse((response) => response.url() === `${base}/hello/Ada`);
    await page
      .getByRole('button', { name: /Send Request/ })
      .first()
      .click();
    const response = await answered;
    expect(response.status()).toBe(200);
    expect(await response.json()).toEqual({ message: 'Hello, Ada!' });
    expect(problems).toEqual([]);
    await page.close();
  });

  it('renders ReDoc', async () => {
    const { page, problems } = await open('/redoc');
    await page.locator('h2', { hasText: 'Say hello' }).waitFor();
    await expect.poll(() => page.title()).toBe('Browser check - ReDoc');
    // Search runs in a worker built from a blob: URL: it only answers if the CSP lets the worker start.
    await page.locator('input[placeholder="Search..."]').fill('hello');
    await page.locator('[data-role="search:results"] li', { hasText: 'Say hello' }).first().waitFor();
    expect(problems).toEqual([]);
    await page.close();
  });
});
