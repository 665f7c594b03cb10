import type { Server } from 'node:http';
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
