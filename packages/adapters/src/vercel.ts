import type { BinaryOptions } from './platform-result.js';
import { type Runtime, runtimeOf, type Servable } from '@fnapi/core/transport';
import { type PlatformNodeRequest, type PlatformNodeResponse, serveNode, vercelWaitUntil } from './node-io.js';

export type { PlatformNodeRequest, PlatformNodeResponse };

/** What a handler finds in `request.state.platform` when it is served through Vercel. */
export interface VercelPlatform {
  name: 'vercel';
  req: PlatformNodeRequest;
  res: PlatformNodeResponse;
}

export type VercelAdapterOptions = BinaryOptions;

/**
 * Serves an app as a Vercel Function on the Node runtime: `export default adapter.handle`. The body
 * is read from the request stream, or, where Vercel's helpers have already consumed it, from
 * `req.body`. For the Web runtime export `app.fetch` instead.
 */
export class VercelAdapter {
  private readonly app: Runtime;

  /**
   * `options` are accepted for parity with the other adapters and change nothing: the Node runtime
   * writes bytes as they are, so binary bodies need no base64 step.
   */
  constructor(app: Servable, _options: VercelAdapterOptions = {}) {
    this.app = runtimeOf(app);
  }

  /** The function (bound: `export default adapter.handle`). */
  handle = (req: PlatformNodeRequest, res: PlatformNodeResponse): Promise<void> =>
    serveNode(this.app, req, res, { name: 'vercel', req, res } satisfies VercelPlatform, vercelWaitUntil());
}
