import { createServer, type Server } from 'node:http';
import type { Servable } from '@fnapi/core/transport';
import * as functions from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { afterAll, beforeAll } from 'vitest';
import { CloudFunctionAdapter } from '../../src/cloud-function.js';
import { VercelAdapter } from '../../src/vercel.js';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { bodyBytes, type MatrixRequest, queryString, requestHeaders } from '../fixtures/events.js';
import { headerMap, type Seen } from './normalize.js';

export function urlOf(request: MatrixRequest): string {
  const query = queryString(request);
  return `${request.path}${query ? `?${query}` : ''}`;
}

/** Sends a matrix request over real HTTP and reads the whole answer. */
export async function sendHttp(base: string, matrixRequest: MatrixRequest): Promise<Seen> {
  const { host: _host, 'content-length': _length, ...headers } = requestHeaders(matrixRequest);
  const response = await request(`${base}${urlOf(matrixRequest)}`, {
    method: matrixRequest.method as 'GET',
    headers,
    body: matrixRequest.body === undefined ? undefined : Buffer.from(bodyBytes(matrixRequest)),
  });
  const body = Buffer.from(await response.body.arrayBuffer());
  return { status: response.statusCode, headers: headerMap(Object.entries(response.headers)), body };
}

export async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

let served = 0;

/** The adapters that answer on a node:http server: each builds that server for an app. */
export const HTTP_ADAPTERS: { name: string; server: (app: Servable) => Server }[] = [
  {
    name: 'CloudFunctionAdapter',
    server: (app) => {
      const name = `fn${++served}`;
      functions.http(name, new CloudFunctionAdapter(app).handle as unknown as functions.HttpFunction);
      return getTestServer(name);
    },
  },
  { name: 'VercelAdapter', server: (app) => createServer(new VercelAdapter(app).handle) },
];

/** Listens with `make()`'s server for the enclosing describe's tests; `base()` is its URL. */
export function serveDuringTests(make: () => Server): { base(): string } {
  let server: Server;
  let base: string | undefined;
  beforeAll(async () => {
    server = make();
    base = await listen(server);
  });
  afterAll(() => close(server));
  return {
    base: () => {
      if (base === undefined) throw new Error('not listening yet');
      return base;
    },
  };
}
