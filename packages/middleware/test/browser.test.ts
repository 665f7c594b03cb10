import { API, HTMLResponse } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { chromiumAvailable, launchChromium } from '@fnapi/test-support';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORSMiddleware } from '../src/index.js';

// A page served from one loopback port calls APIs on other ports with fetch, in headless Chromium:
// the browser itself enforces the CORS answers. Skipped (loudly) without Chromium, unless
// FNAPI_REQUIRE_SERVICES=1, where a missing Chromium fails the run.
const available = chromiumAvailable('the CORS browser test');

interface FetchOutcome {
  ok: boolean;
  status?: number;
  body?: unknown;
  header?: string | null;
  error?: string;
}

function apiWith(cors: CORSMiddleware): API {
  const app = new API({ logger: false });
  app.addMiddleware(cors);
  app.get('/data', () => ({ message: 'hello from the API' }));
  app.post('/echo', async (_input, request) => ({ got: await request.json() }));
  app.get('/count', () => new HTMLResponse('3', { headers: { 'x-total-count': '3' } }));
  return app;
}

describe.skipIf(!available)('CORS in a real browser', () => {
  let browser: Browser;
  let page: Page;
  let pageServer: TestClient;
  let allowed: TestClient;
  let denied: TestClient;
  let wildcard: TestClient;
  const consoleMessages: string[] = [];

  beforeAll(async () => {
    const site = new API({ logger: false });
    site.get('/', () => new HTMLResponse('<!doctype html><title>page</title><p>client page</p>'));
    pageServer = await TestClient.start(site);
    const pageOrigin = pageServer.url.replace(/\/$/, '');

    allowed = await TestClient.start(
      apiWith(new CORSMiddleware({ allowOrigins: [pageOrigin], allowCredentials: true, exposeHeaders: ['X-Total-Count'] })),
    );
    denied = await TestClient.start(apiWith(new CORSMiddleware({ allowOrigins: ['https://somewhere-else.example'] })));
    wildcard = await TestClient.start(apiWith(new CORSMiddleware()));

    browser = await launchChromium();
    page = await browser.newPage();
    page.on('console', (message) => consoleMessages.push(message.text()));
    await page.goto(pageServer.url);
    expect(await page.textContent('p')).toBe('client page');
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all([pageServer, allowed, denied, wildcard].map((c) => c?.close()));
  });

  function call(url: string, init: RequestInit = {}, header?: string): Promise<FetchOutcome> {
    return page.evaluate(
      async ({ url, init, header }) => {
        try {
          const response = await fetch(url, init);
          const text = await response.text();
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON
          }
          return { ok: true, status: response.status, body, header: header ? response.headers.get(header) : undefined };
        } catch (error) {
          return { ok: false, error: String(error) };
        }
      },
      { url, init, header },
    );
  }

  it('the page and the APIs are on different origins', () => {
    expect(new URL(pageServer.url).origin).not.toBe(new URL(allowed.url).origin);
  });

  it('lets the page read a simple GET when its origin is allowed', async () => {
    const outcome = await call(`${allowed.url}/data`);
    expect(outcome).toMatchObject({ ok: true, status: 200, body: { message: 'hello from the API' } });
  });

  it('lets the page send a preflighted JSON POST with credentials when its origin is allowed', async () => {
    const outcome = await call(`${allowed.url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ a: 1 }),
      credentials: 'include',
    });
    expect(outcome).toMatchObject({ ok: true, status: 200, body: { got: { a: 1 } } });
  });

  it('exposes only the headers listed in exposeHeaders', async () => {
    const outcome = await call(`${allowed.url}/count`, {}, 'x-total-count');
    expect(outcome).toMatchObject({ ok: true, header: '3' });
    const hidden = await call(`${wildcard.url}/count`, {}, 'x-total-count');
    expect(hidden).toMatchObject({ ok: true, header: null });
  });

  it('blocks the call when the page origin is not allowed', async () => {
    consoleMessages.length = 0;
    const simple = await call(`${denied.url}/data`);
    expect(simple.ok).toBe(false);
    expect(simple.error).toMatch(/TypeError/);
    const preflighted = await call(`${denied.url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(preflighted.ok).toBe(false);
    expect(consoleMessages.join('\n')).toMatch(/CORS policy/);
  });

  it('lets any page read from a wildcard API, but not with credentials', async () => {
    expect(await call(`${wildcard.url}/data`)).toMatchObject({ ok: true, status: 200 });
    const credentialed = await call(`${wildcard.url}/data`, { credentials: 'include' });
    expect(credentialed.ok).toBe(false);
  });
});
