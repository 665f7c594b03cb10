import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API, Response, StreamingResponse } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { LoggingPlugin, renderTemplate } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'fnapi-logging-'));
let counter = 0;
const logFile = () => join(dir, `nested/run-${++counter}.log`);
const readLines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.length > 0);

let client: TestClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function buildApp(plugin: LoggingPlugin) {
  const app = new API({ logger: false });
  app.get('/items/{id}', ({ id }) => new Response({ id }, { headers: { 'set-cookie': ['session=secret; HttpOnly', 'theme=dark'] } }));
  app.post('/items', async (_input, request) => ({ created: await request.json() }));
  app.get('/fail', () => {
    throw new Error('kaput');
  });
  app.get(
    '/stream',
    () =>
      new StreamingResponse(
        (async function* () {
          yield 'a';
          yield 'b';
        })(),
        { mediaType: 'text/plain' },
      ),
  );
  app.pluginManager.register(plugin);
  return app;
}

describe('LoggingPlugin', () => {
  it('writes one parseable JSON line per request and per response to the file, credentials redacted', async () => {
    const file = logFile();
    const plugin = new LoggingPlugin({ logToConsole: false, logToFile: true, logFile: file });
    client = await TestClient.start(buildApp(plugin));
    await client.get('/items/7?full=1', {
      headers: { authorization: 'Bearer sekrit', cookie: 'sid=abc', 'x-api-key': 'key-123', 'x-trace': 'visible' },
    });
    await client.get('/fail');

    const raw = readFileSync(file, 'utf8');
    expect(raw).not.toMatch(/sekrit|sid=abc|key-123|session=secret|theme=dark/);
    const lines = readLines(file).map((line) => JSON.parse(line));
    expect(lines).toHaveLength(4);
    const [request, response, failedRequest, failedResponse] = lines;

    expect(request).toMatchObject({ level: 'info', event: 'request', method: 'GET', path: '/items/7', query: 'full=1', msg: 'request' });
    expect(request.headers).toMatchObject({
      authorization: '[REDACTED]',
      cookie: '[REDACTED]',
      'x-api-key': '[REDACTED]',
      'x-trace': 'visible',
    });
    expect(request.body).toBeUndefined();
    expect(Date.parse(request.time)).not.toBeNaN();

    expect(response).toMatchObject({
      level: 'info',
      event: 'response',
      method: 'GET',
      path: '/items/7',
      route: '/items/{id}',
      status: 200,
      msg: 'response',
    });
    expect(response.headers['set-cookie']).toEqual(['[REDACTED]', '[REDACTED]']);
    expect(response.duration).toBeTypeOf('number');
    expect(response.body).toBeUndefined();

    expect(failedRequest).toMatchObject({ event: 'request', path: '/fail' });
    expect(failedResponse).toMatchObject({ level: 'error', event: 'response', status: 500 });
  });

  it('logs bodies only when asked', async () => {
    const file = logFile();
    client = await TestClient.start(
      buildApp(new LoggingPlugin({ logToConsole: false, logFile: file, logRequestBody: true, logResponseBody: true })),
    );
    const res = await client.post('/items', { json: { name: 'pen' } });
    expect(res.json()).toEqual({ created: { name: 'pen' } }); // the handler still reads the body
    await client.get('/stream');
    const lines = readLines(file).map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ event: 'request', method: 'POST', body: '{"name":"pen"}' });
    expect(lines[1]).toMatchObject({ event: 'response', status: 200, body: '{"created":{"name":"pen"}}' });
    expect(lines[2].body).toBeUndefined(); // a GET without a body
    expect(lines[3]).toMatchObject({ event: 'response', body: '[stream]' });
  });

  it('writes text lines from a template', async () => {
    const file = logFile();
    client = await TestClient.start(
      buildApp(
        new LoggingPlugin({ logToConsole: false, logFile: file, logFormat: '{time} {level} {method} {path} {status} {duration}ms' }),
      ),
    );
    await client.get('/items/3');
    const lines = readLines(file);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO GET \/items\/3 - -ms$/);
    expect(lines[1]).toMatch(/^\S+ INFO GET \/items\/3 200 \d+(\.\d+)?ms$/);
  });

  it("understands 'text' and Python-style placeholders", () => {
    const line = { time: 'T', level: 'warn', msg: 'response', method: 'GET', path: '/x', status: 404, duration: 1.5, headers: { a: 'b' } };
    expect(renderTemplate('%(asctime)s - %(levelname)s - %(message)s', line)).toBe('T - WARN - response');
    expect(renderTemplate('{headers.a} {missing} {headers}', line)).toBe('b - {"a":"b"}');
  });

  it('honours logLevel: WARNING keeps only 4xx and 5xx responses', async () => {
    const file = logFile();
    client = await TestClient.start(buildApp(new LoggingPlugin({ logToConsole: false, logFile: file, logLevel: 'WARNING' })));
    await client.get('/items/1');
    await client.get('/nowhere');
    await client.get('/fail');
    const lines = readLines(file).map((line) => JSON.parse(line));
    expect(lines.map((l) => [l.level, l.status])).toEqual([
      ['warn', 404],
      ['error', 500],
    ]);
  });

  it('refuses an unknown level', () => {
    expect(() => new LoggingPlugin({ logLevel: 'LOUD', logToConsole: false })).toThrow(/unknown logLevel/);
  });

  it('can write to a stream of its own', async () => {
    const chunks: string[] = [];
    client = await TestClient.start(buildApp(new LoggingPlugin({ logToConsole: false, stream: { write: (s: string) => chunks.push(s) } })));
    await client.get('/items/1');
    expect(chunks.map((c) => JSON.parse(c).event)).toEqual(['request', 'response']);
  });
});
