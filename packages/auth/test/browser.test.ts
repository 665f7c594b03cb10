/**
 * Swagger UI in headless Chromium: the Authorize button takes a bearer token, or a user name and
 * password that it trades for a token at the app's own token endpoint (OAuth2's password flow), and
 * "Try it out" on a protected route then answers 200 on the page.
 */
import { API, BadRequestError, form } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { chromiumAvailable, isLoopbackUrl, launchChromium } from '@fnapi/test-support';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken, jwtRequired, passwordForm } from '../src/index.js';

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

describe.skipIf(!available)('Swagger UI Authorize with OAuth2 password flow', () => {
  let client: TestClient;
  let browser: Browser;
  const logins: { username: string; password: string; scope: string[]; grant_type?: string | undefined }[] = [];

  beforeAll(async () => {
    const app = new API({ title: 'Password flow demo', logger: false });
    const flow = { tokenUrl: '/token', scopes: { me: 'Read your profile', items: 'Read items' } };
    app.post('/token', { summary: 'Sign in', params: { login: form(passwordForm) } }, async ({ login }) => {
      logins.push({ ...login });
      if (login.username !== 'ada' || login.password !== 'lovelace') throw new BadRequestError('Incorrect username or password');
      const access_token = await createToken({ sub: login.username, scope: login.scope.join(' ') }, { secret: SECRET, algorithm: 'HS256' });
      return { access_token, token_type: 'bearer' };
    });
    app.get(
      '/me',
      { summary: 'Who am I' },
      jwtRequired({ secret: SECRET, algorithm: 'HS256', oauth2: flow, scopes: ['me'] })(function me(_input, request) {
        return { user: request.auth?.subject, scopes: request.auth?.scopes };
      }),
    );
    client = await TestClient.start(app);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await client?.close();
  });

  it("signs in through the Authorize dialog at the app's token endpoint, then calls /me with the token", async () => {
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
    await modal.locator('#oauth_username').fill('ada');
    await modal.locator('#oauth_password').fill('lovelace');
    // The scope's checkbox is drawn by its label.
    await modal.locator('label[for="me-password-checkbox-oauth2Password"]').click();
    expect(await modal.locator('input[data-value="me"]').isChecked()).toBe(true);
    const token = page.waitForResponse((response) => response.url() === `${client.url}/token`);
    await modal.locator('button.modal-btn.authorize').click();
    expect((await token).status()).toBe(200);
    await modal.locator('button.btn-done').click();
    expect(logins).toEqual([{ grant_type: 'password', username: 'ada', password: 'lovelace', scope: ['me'] }]);

    const me = page.locator('.opblock-get', { has: page.locator('.opblock-summary-path[data-path="/me"]') });
    await me.locator('.opblock-summary').click();
    await me.getByRole('button', { name: 'Try it out' }).click();
    await me.getByRole('button', { name: 'Execute' }).click();
    const live = me.locator('.live-responses-table');
    await expect.poll(() => live.locator('.response .response-col_status').first().textContent()).toContain('200');
    await expect.poll(() => live.locator('.response-col_description .microlight').first().textContent()).toContain('"user": "ada"');
    expect(authorizations).toHaveLength(1);
    expect(authorizations[0]).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    expect(problems).toEqual([]);
    expect(requests.filter((url) => !isLoopbackUrl(url))).toEqual([]);
    await page.close();
  });
});
