import { existsSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { Writable } from 'node:stream';
import { chromium, type Browser, type Page } from 'playwright-core';
import { vi } from 'vitest';

/** Under `FNAPI_REQUIRE_SERVICES=1` (CI) a missing service or browser fails instead of skipping. */
export const REQUIRE_SERVICES = process.env.FNAPI_REQUIRE_SERVICES === '1';

export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

function unavailable(what: string, why: string, hint: string): false {
  if (REQUIRE_SERVICES) throw new Error(`FNAPI_REQUIRE_SERVICES=1 but ${what} is unavailable: ${why}. ${hint}`);
  console.warn(
    ['', `!!! SKIPPED: ${what} is unavailable: ${why}.`, `!!! ${hint}`, '!!! With FNAPI_REQUIRE_SERVICES=1 this fails instead.', ''].join(
      '\n',
    ),
  );
  return false;
}

/** Whether something accepts TCP connections at `host:port` within `timeoutMs`. */
export function tcpReachable(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

const DEFAULT_PORTS: Record<string, number> = { 'postgres:': 5432, 'postgresql:': 5432, 'redis:': 6379, 'rediss:': 6379 };

/**
 * Probes the service at `url` (a TCP connect). Absent: a loud skip, or a thrown error under
 * `FNAPI_REQUIRE_SERVICES=1`, so a suite written `describe.skipIf(!(await serviceAvailable(…)))` fails
 * in CI instead of passing silently.
 */
export async function serviceAvailable(name: string, url: string): Promise<boolean> {
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1';
  const port = Number(parsed.port) || DEFAULT_PORTS[parsed.protocol] || 0;
  if (await tcpReachable(host, port)) return true;
  return unavailable(name, `nothing answers at ${host}:${port}`, `Start it, or point the URL elsewhere (${url}).`);
}

const CHROMIUM_CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];

/** Debian's Chromium, if installed. */
export function chromiumPath(): string | undefined {
  return CHROMIUM_CANDIDATES.find((p): p is string => !!p && existsSync(p));
}

/** Whether Chromium is there for `what`; skips loudly, or throws under `FNAPI_REQUIRE_SERVICES=1`. */
export function chromiumAvailable(what: string): boolean {
  if (chromiumPath()) return true;
  return unavailable(
    `Chromium (for ${what})`,
    'not found at $CHROMIUM_PATH, /usr/bin/chromium or /usr/bin/chromium-browser',
    'Install it with: apt-get update && apt-get install -y chromium',
  );
}

/** Flags that keep a headless Chromium run as root off the network and quiet. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error('Chromium is not installed (apt-get install chromium)');
  return chromium.launch({ executablePath, args: CHROMIUM_ARGS });
}

/** A page opened in Chromium, with what went wrong in it and every URL it requested. */
export interface OpenedPage {
  page: Page;
  /** Page errors, console errors and failed requests. */
  problems: string[];
  requests: string[];
}

/** Opens `url` in a new page of `browser`, recording its problems and requests from the start. */
export async function openPage(browser: Browser, url: string): Promise<OpenedPage> {
  const page = await browser.newPage();
  const problems: string[] = [];
  const requests: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${String(error)}`));
  page.on('requestfailed', (request) => problems.push(`failed: ${request.url()} ${request.failure()?.errorText ?? ''}`));
  page.on('request', (request) => requests.push(request.url()));
  const response = await page.goto(url);
  if (response?.status() !== 200) problems.push(`status ${response?.status()} for ${url}`);
  return { page, problems, requests };
}

/** Whether a URL a page requested stayed on this machine (loopback, or inline data). */
export function isLoopbackUrl(url: string): boolean {
  if (url.startsWith('data:') || url.startsWith('blob:')) return true;
  try {
    const { protocol, hostname } = new URL(url);
    return protocol === 'http:' && (hostname === '127.0.0.1' || hostname === 'localhost' || hostname === '[::1]');
  } catch {
    return false;
  }
}

/** A loopback port nothing listens on right now (a server opened on port 0, then closed). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A writable stream that keeps every JSON line written to it (give it to pino to read the logs). */
export function jsonLines(): { stream: Writable; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  return { stream, lines };
}

/** A valid 1×1 PNG (70 bytes): content that `file-type` recognises as `image/png`. */
export const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

const runtimePackages = new URL('../node_modules/', import.meta.url);
/**
 * Where each package's postinstall leaves the runtime itself. Not the `.bin` shims: they run the binary
 * as a child of a shell (bun) or of node (deno), so killing the shim would leave the runtime running.
 */
const RUNTIME_EXECUTABLES = { bun: 'bun/bin/bun.exe', deno: 'deno/deno' } as const;

/**
 * The Bun or Deno binary installed from the npm registry (devDependencies of this package, whose
 * postinstall links the platform's binary), if it is there and runs.
 */
export function runtimeBinary(name: 'bun' | 'deno'): string | undefined {
  const path = new URL(RUNTIME_EXECUTABLES[name], runtimePackages).pathname;
  return existsSync(path) ? path : undefined;
}

/** Whether the runtime is there for `what`; skips loudly, or throws under `FNAPI_REQUIRE_SERVICES=1`. */
export function runtimeAvailable(name: 'bun' | 'deno' | 'workerd', what: string): boolean {
  if (name === 'workerd' || runtimeBinary(name) !== undefined) return true;
  return unavailable(
    `${name} (for ${what})`,
    `no ${name} binary under packages/test-support/node_modules/${RUNTIME_EXECUTABLES[name]}`,
    'Run pnpm install (the package installs it; its postinstall must be allowed in onlyBuiltDependencies)',
  );
}

/** miniflare (workerd from the npm registry), loaded when a test runs a Worker. */
export async function loadMiniflare(): Promise<typeof import('miniflare')> {
  return import('miniflare');
}

/** A small deterministic generator of numbers in [0, 1), so that a failing random case repeats. */
export function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

/**
 * Waits until `check` holds, asking every 25 ms, at most `ms`; a check that throws ends the wait with
 * its error. A test waits on a condition this way rather than sleeping for a guessed time.
 */
export async function until(check: () => Promise<boolean> | boolean, ms = 5000, what = 'condition'): Promise<void> {
  let failure: { error: unknown } | undefined;
  const settled = async () => {
    try {
      return await check();
    } catch (error) {
      failure = { error };
      return true;
    }
  };
  await vi.waitUntil(settled, { timeout: ms, interval: 25 }).catch(() => {
    throw new Error(`timed out after ${ms} ms waiting for ${what}`);
  });
  if (failure) throw failure.error;
}
