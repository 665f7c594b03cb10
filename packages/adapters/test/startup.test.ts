/**
 * Startup through every adapter: a failing startup answers 503 (problem body), the next event tries
 * again and then serves with the pool open.
 */
import { createServer } from 'node:http';
import { HttpRequest, HttpResponse } from '@azure/functions';
import { API } from '@fnapi/core';
import { describe, expect, it } from 'vitest';
import { AzureFunctionAdapter, CloudFunctionAdapter, LambdaAdapter, NetlifyAdapter, VercelAdapter } from '../src/index.js';
import { httpApiEvent, netlifyEvent, restEvent } from './fixtures/events.js';
import { close, listen } from './support/http.js';

function flakyApp() {
  const app = new API({ logger: false });
  const state = { runs: 0, pool: 0 };
  app.onStartup(() => {
    state.runs++;
    if (state.runs === 1) throw new Error('database away');
    state.pool++;
  });
  app.get('/pool', () => ({ pool: state.pool }));
  return { app, state };
}

type Answer = { status: number; body: string };

async function viaHttp(handler: Parameters<typeof createServer>[1], path: string): Promise<Answer> {
  const server = createServer(handler);
  const base = await listen(server);
  try {
    const res = await fetch(`${base}${path}`);
    return { status: res.status, body: await res.text() };
  } finally {
    await close(server);
  }
}

const adapters: [string, (app: API) => (path: string) => Promise<Answer>][] = [
  [
    'Lambda (REST)',
    (app) => async (path) => {
      const out = (await new LambdaAdapter(app).handle(restEvent({ method: 'GET', path }))) as { statusCode: number; body: string };
      return { status: out.statusCode, body: out.body };
    },
  ],
  [
    'Lambda (HTTP API)',
    (app) => async (path) => {
      const out = (await new LambdaAdapter(app).handle(httpApiEvent({ method: 'GET', path }))) as { statusCode: number; body: string };
      return { status: out.statusCode, body: out.body };
    },
  ],
  [
    'Netlify (v1 event)',
    (app) => async (path) => {
      const out = await new NetlifyAdapter(app, { stripFunctionPath: true }).handle(netlifyEvent({ method: 'GET', path }));
      return { status: out.statusCode, body: out.body };
    },
  ],
  [
    'Netlify (Web Request)',
    (app) => async (path) => {
      const res = await new NetlifyAdapter(app).handle(new Request(`https://site.netlify.app${path}`));
      return { status: res.status, body: await res.text() };
    },
  ],
  [
    'Azure Functions',
    (app) => async (path) => {
      const init = await new AzureFunctionAdapter(app).handle(
        new HttpRequest({ method: 'GET', url: `https://fn.azurewebsites.net${path}` }),
        {},
      );
      const res = new HttpResponse(init);
      return { status: res.status, body: await res.text() };
    },
  ],
  ['Cloud Functions', (app) => (path) => viaHttp(new CloudFunctionAdapter(app).handle as never, path)],
  ['Vercel', (app) => (path) => viaHttp(new VercelAdapter(app).handle as never, path)],
];

describe.each(adapters)('startup through %s', (_name, make) => {
  it('answers 503 while startup fails, then retries and serves', async () => {
    const { app, state } = flakyApp();
    const send = make(app);
    const refused = await send('/pool');
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body)).toMatchObject({ type: 'about:blank', title: 'Service Unavailable', status: 503 });
    const served = await send('/pool');
    expect(served.status).toBe(200);
    expect(JSON.parse(served.body)).toEqual({ pool: 1 });
    expect(state.runs).toBe(2);
  });
});
