/**
 * The example's page in a real headless Chromium: `EventSource` receives the feed as it is posted to,
 * and reconnects with `Last-Event-ID` when the stream ends, getting what it missed exactly once.
 * Swagger UI and ReDoc render the streaming operations from the 3.1 and the 3.2 document.
 *
 * Without Chromium these tests are skipped with a warning, unless FNAPI_REQUIRE_SERVICES=1.
 */
import { TestClient } from '@fnapi/core/testing';
import { chromiumAvailable, isLoopbackUrl, launchChromium, type OpenedPage, openPage } from '@fnapi/test-support';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { Feed } from '../src/feed.js';

const available = chromiumAvailable('the events example page');

describe.skipIf(!available)('examples/events in headless Chromium', () => {
  const feed = new Feed();
  let client: TestClient;
  let client32: TestClient;
  let browser: Browser;

  beforeAll(async () => {
    client = await TestClient.start(createApp({ logger: false, feed, retry: 0.1 }));
    client32 = await TestClient.start(createApp({ logger: false, openapiVersion: '3.2.0' }));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await client?.close();
    await client32?.close();
  });

  async function open(base: string, path: string): Promise<OpenedPage> {
    const opened = await openPage(browser, `${base}${path}`);
    expect(opened.problems).toEqual([]);
    return opened;
  }

  const texts = (page: Page) => page.locator('#messages li').evaluateAll((items) => items.map((item) => item.firstChild?.textContent));

  it('shows messages as they are posted, and catches up after a reconnect with Last-Event-ID', async () => {
    const { page, problems, requests } = await open(client.url, '/');
    await expect.poll(() => page.locator('#status').textContent()).toContain('connected');

    await client.post('/messages', { json: { text: 'first' } });
    await expect.poll(() => texts(page)).toEqual(['first']);
    // Posted through the page's own form too.
    await page.locator('input[name=text]').fill('from the page');
    await page.locator('button').click();
    await expect.poll(() => texts(page)).toEqual(['first', 'from the page']);
    const lastSeen = String(feed.latest);

    // The server ends every open stream (a redeploy); a message arrives while the page is away.
    feed.cut();
    feed.publish('while away');
    await expect.poll(() => feed.reconnects).toContain(lastSeen);
    await expect.poll(() => texts(page)).toEqual(['first', 'from the page', 'while away']);
    await client.post('/messages', { json: { text: 'after' } });
    await expect.poll(() => texts(page)).toEqual(['first', 'from the page', 'while away', 'after']);

    expect(problems).toEqual([]);
    expect(requests.filter((url) => !isLoopbackUrl(url))).toEqual([]);
    await page.close();
  });

  for (const version of ['3.1', '3.2'] as const) {
    it(`Swagger UI shows the streaming operations of the ${version} document`, async () => {
      const base = version === '3.1' ? client.url : client32.url;
      const { page, problems } = await open(base, '/docs');
      await page.locator('.opblock').first().waitFor();
      const paths = await page.locator('.opblock-summary-path').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-path')));
      expect(paths.sort()).toEqual(['/export', '/feed', '/messages']);
      const feedBlock = page.locator('.opblock-get', { has: page.locator('.opblock-summary-path[data-path="/feed"]') });
      await feedBlock.locator('.opblock-summary').click();
      await expect.poll(() => feedBlock.locator('.responses-table').first().textContent()).toContain('text/event-stream');
      expect(problems).toEqual([]);
      await page.close();
    });

    it(`ReDoc shows the streaming operations of the ${version} document`, async () => {
      const base = version === '3.1' ? client.url : client32.url;
      const { page, problems } = await open(base, '/redoc');
      for (const summary of ['Follow the feed', 'Export the messages', 'Post a message']) {
        await page.locator('h2', { hasText: summary }).first().waitFor();
      }
      expect(problems).toEqual([]);
      await page.close();
    });
  }
});
