import { type Runtime, runtimeOf, type Servable } from '@fnapi/core/transport';
import { type PlatformNodeRequest, type PlatformNodeResponse, serveNode } from './node-io.js';

export type { PlatformNodeRequest, PlatformNodeResponse };

/** What a handler finds in `request.state.platform` when it is served through Cloud Functions. */
export interface CloudFunctionPlatform {
  name: 'cloud-function';
  req: PlatformNodeRequest;
  res: PlatformNodeResponse;
}

/**
 * Serves an app as a Google Cloud Function (an HTTP function of `@google-cloud/functions-framework`):
 * `functions.http('api', adapter.handle)`. The framework has already read and parsed the body; the
 * adapter uses its `rawBody`, so the app validates the bytes the client sent.
 */
export class CloudFunctionAdapter {
  private readonly app: Runtime;

  constructor(app: Servable) {
    this.app = runtimeOf(app);
  }

  /** The HTTP function (bound: it can be passed on as it is). */
  handle = (req: PlatformNodeRequest, res: PlatformNodeResponse): Promise<void> =>
    serveNode(this.app, req, res, { name: 'cloud-function', req, res } satisfies CloudFunctionPlatform);
}
