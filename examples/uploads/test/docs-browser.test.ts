/**
 * Swagger UI's "Try it out" uploads a file through its file picker: the page offers a file input for
 * the binary field, the picked file goes out as multipart/form-data, and the answer shows its size.
 *
 * Without Chromium the test is skipped with a warning, unless FNAPI_REQUIRE_SERVICES=1.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestClient } from '@fnapi/core/testing';
import { chromiumAvailable, isLoopbackUrl, launchChromium, TINY_PNG as PNG } from '@fnapi/test-support';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';

const available = chromiumAvailable('Swagger UI uploading a file');

describe.skipIf(!available)('Swagger UI uploads a file', () => {
  let client: TestClient;
  let browser: Browser;

  beforeAll(async () => {
    client = await TestClient.start(createApp({ logger: false }));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await client?.close();
  });

  it('"Try it out" sends the picked file and shows the size the endpoint received', async () => {
    // A PNG of a size no other field could produce, padded after its end chunk.
    const picture = Buffer.concat([PNG, Buffer.alloc(12_345 - PNG.length, 0)]);
    const path = join(mkdtempSync(join(tmpdir(), 'fnapi-picker-')), 'portrait.png');
    writeFileSync(path, picture);

    const page = await browser.newPage();
    const problems: string[] = [];
    const sent: { url: string; contentType: string | undefined }[] = [];
    page.on('pageerror', (error) => problems.push(`pageerror: ${String(error)}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('request', (request) => sent.push({ url: request.url(), contentType: request.headers()['content-type'] }));
    expect((await page.goto(`${client.url}/docs`))?.status()).toBe(200);

    const op = page.locator('.opblock-post', { has: page.locator('.opblock-summary-path[data-path="/avatars/{user_id}"]') });
    await op.locator('.opblock-summary').click();
    await op.getByRole('button', { name: 'Try it out' }).click();
    await op.locator('input[placeholder="user_id"]').fill('42');
    const picker = op.locator('input[type="file"]');
    await expect.poll(() => picker.count()).toBe(1);
    await picker.setInputFiles(path);
    await op.getByRole('button', { name: 'Execute' }).click();

    const live = op.locator('.live-responses-table');
    await expect.poll(() => live.locator('.response .response-col_status').first().textContent(), { timeout: 15_000 }).toContain('200');
    const shown = (await live.locator('.response-col_description .microlight').first().textContent()) ?? '';
    expect(shown).toContain('"size": 12345');
    expect(shown).toContain('"name": "portrait.png"');
    expect(shown).toContain('"type": "image/png"');
    expect(shown).toContain('"user_id": 42');

    const upload = sent.find((r) => r.url === `${client.url}/avatars/42`);
    expect(upload?.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(sent.filter((r) => !isLoopbackUrl(r.url))).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });
});
