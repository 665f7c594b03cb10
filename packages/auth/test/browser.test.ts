/**
 * Swagger UI in headless Chromium: the Authorize button takes a bearer token, and "Try it out" on a
 * protected route then answers 200 on the page.
 */
import { API } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { chromiumAvailable, isLoopbackUrl, launchChromium } from '@fnapi/test-support';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken, jwtRequired } from '../src/index.js';

const SECRET = 'browser-test-secret-of-32-bytes-or-more';
const available = chromiumAvailable('Swagger UI with a bearer token');

describe.skipIf(!available)('Swagger UI Authorize with a bearer token', () => {
  let client: TestClient;
  let browser: Browser;

  beforeAll(async () => {
    const app = new API({ title: 'Auth demo', logger: false });
    app.get(
      '/me',
      { summary: 'Who am I' },
      jwtRequired({ secret: SECRET, algorithm: 'HS256' })(function me(_input, request) {
        return { user: request.auth?.subject };
      }),
    );
    client = await TestClient.start(app);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await client?.close();
  });

  it('sends the token and shows 200', async () => {
    const token = await createToken({ sub: 'ada' }, { secret: SECRET, algorithm: 'HS256', expiresIn: '1h' });
    const page = await browser.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    const authorizations: (string | undefined)[] = [];
    page.on('pageerror', (error) => problems.push(String(error)));
    page.on('request', (request) => {
      requests.push(request.url());
      if (request.url().endsWith('/me')) authorizations.push(request.headers().authorization);
    });
    await page.goto(`${client.url}/docs`);
    await page.locator('.opblock').first().waitFor();

    await page.locator('button.authorize').first().click();
    const modal = page.locator('.modal-ux');
    await modal.locator('#auth-bearer-value').fill(token);
    await modal.locator('button.modal-btn.authorize').click();
    await modal.locator('button.btn-done').click();

    const me = page.locator('.opblock-get', { has: page.locator('.opblock-summary-path[data-path="/me"]') });
    await me.locator('.opblock-summary').click();
    await me.getByRole('button', { name: 'Try it out' }).click();
    await me.getByRole('button', { name: 'Execute' }).click();
    const live = me.locator('.live-responses-table');
    await expect.poll(() => live.locator('.response .response-col_status').first().textContent()).toContain('200');
    await expect.poll(() => live.locator('.response-col_description .microlight').first().textContent()).toContain('"user": "ada"');
    expect(authorizations).toEqual([`Bearer ${token}`]);
    expect(problems).toEqual([]);
    expect(requests.filter((url) => !isLoopbackUrl(url))).toEqual([]);
    await page.close();
  });
});
