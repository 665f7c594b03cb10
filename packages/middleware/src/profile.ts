import type { CallNext, Request, Response } from '@fnapi/core';
import { roundMs } from '@fnapi/core/extend';
import { Middleware } from './base.js';

/**
 * Times everything inside it and reports it on the response: `Server-Timing: app;dur=<ms>`
 * (appended to any `Server-Timing` already there) and `X-Process-Time: <seconds>`.
 */
export class ProfileMiddleware extends Middleware {
  async dispatch(request: Request, callNext: CallNext): Promise<Response> {
    const started = performance.now();
    const response = await callNext(request);
    const elapsed = performance.now() - started;
    const timing = `app;dur=${roundMs(elapsed)}`;
    const existing = response.headers.get('server-timing');
    response.headers.set('server-timing', existing ? `${existing}, ${timing}` : timing);
    response.headers.set('x-process-time', (elapsed / 1000).toFixed(6));
    return response;
  }
}
