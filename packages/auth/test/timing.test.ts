/**
 * Refusing an unknown user must take as long as refusing a known user with a wrong password: the
 * median time of each, over a few thousand interleaved tries in process, agrees within noise.
 */
import { Request } from '@fnapi/core';
import { describe, expect, it } from 'vitest';
import { apiKeyRequired, basicAuthRequired } from '../src/index.js';

const credentials = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`user${i}`, `password-${i}-${'x'.repeat(i)}`]));

function requestWith(headers: Record<string, string>): Request {
  return new Request({ method: 'GET', path: '/', headers });
}

async function medianNs(attempt: () => Promise<unknown>, samples: bigint[]): Promise<void> {
  const start = process.hrtime.bigint();
  await attempt().catch(() => {});
  samples.push(process.hrtime.bigint() - start);
}

function median(values: bigint[]): number {
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return Number(sorted[Math.floor(sorted.length / 2)]);
}

async function compare(a: () => Promise<unknown>, b: () => Promise<unknown>, tries = 4000): Promise<[number, number]> {
  for (let i = 0; i < 500; i++) {
    await a().catch(() => {});
    await b().catch(() => {});
  }
  const sa: bigint[] = [];
  const sb: bigint[] = [];
  for (let i = 0; i < tries; i++) {
    // Interleaved, alternating which goes first, so machine noise falls on both alike.
    if (i % 2 === 0) {
      await medianNs(a, sa);
      await medianNs(b, sb);
    } else {
      await medianNs(b, sb);
      await medianNs(a, sa);
    }
  }
  return [median(sa), median(sb)];
}

const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });

describe('constant-time refusals', () => {
  it('Basic: an unknown user takes as long to refuse as a known user with a wrong password', async () => {
    const { scheme } = basicAuthRequired({ credentials });
    const unknown = requestWith(basic('nobody-at-all', 'password-7-xxxxxxx'));
    const wrongPassword = requestWith(basic('user7', 'password-7-xxxxxxy'));
    const [tUnknown, tWrong] = await compare(
      () => scheme.authenticate(unknown),
      () => scheme.authenticate(wrongPassword),
    );
    expect(tUnknown / tWrong).toBeGreaterThan(0.8);
    expect(tUnknown / tWrong).toBeLessThan(1.25);
  });

  it('API keys: a short unknown key takes as long to refuse as a near miss of a real one', async () => {
    const apiKeys = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`live-key-${i}-${'k'.repeat(40)}`, ['read']]));
    const { scheme } = apiKeyRequired({ apiKeys });
    const short = requestWith({ 'x-api-key': 'x' });
    const nearMiss = requestWith({ 'x-api-key': `live-key-3-${'k'.repeat(39)}j` });
    const [tShort, tNear] = await compare(
      () => scheme.authenticate(short),
      () => scheme.authenticate(nearMiss),
    );
    expect(tShort / tNear).toBeGreaterThan(0.8);
    expect(tShort / tNear).toBeLessThan(1.25);
  });
});
