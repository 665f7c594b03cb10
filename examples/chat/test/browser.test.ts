/**
 * The chat page in a real headless Chromium: two pages join one room (the token travels as
 * `?token=`, since a browser cannot set headers on a WebSocket) and each sees the other's messages.
 *
 * Without Chromium these tests are skipped with a warning, unless FNAPI_REQUIRE_SERVICES=1.
 */
import { Hub } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { chromiumAvailable, launchChromium, openPage } from '@fnapi/test-support';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChat } from '../src/app.js';

const available = chromiumAvailable('the chat example page');

describe.skipIf(!available)('examples/chat in headless Chromium', () => {
  let client: TestClient;
  let browser: Browser;
  beforeAll(async () => {
    client = await TestClient.start(
      createChat({ hub: new Hub({ logger: false }), secret: 'browser-test-secret-long-enough-for-hs256', logger: false }),
    );
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await client?.close();
  });

  const lines = (page: Page) => page.locator('#messages li').evaluateAll((items) => items.map((item) => item.textContent));

  async function join(name: string, room: string) {
    const opened = await openPage(browser, `${client.url}/`);
    const { page } = opened;
    await page.locator('input[name=name]').fill(name);
    await page.locator('input[name=room]').fill(room);
    await page.locator('#join button').click();
    await expect.poll(() => page.locator('#status').textContent()).toBe(`connected to ${room}`);
    return opened;
  }

  async function say(page: Page, text: string) {
    await page.locator('input[name=text]').fill(text);
    await page.locator('#say button').click();
  }

  it('two pages in one room see each other’s messages', async () => {
    const ada = await join('ada', 'garden');
    const bob = await join('bob', 'garden');
    await say(ada.page, 'hello bob');
    await expect.poll(() => lines(bob.page)).toContain('adahello bob');
    await say(bob.page, 'hello ada');
    await expect.poll(() => lines(ada.page)).toContain('bobhello ada');
    expect((await lines(ada.page)).filter((l) => !l!.startsWith('server'))).toEqual(['adahello bob', 'bobhello ada']);
    expect(ada.problems).toEqual([]);
    expect(bob.problems).toEqual([]);
  });
});
