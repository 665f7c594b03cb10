/**
 * Marks a request body that an upload endpoint is reading, so that the node:http server does not cut it
 * off at `requestTimeout` (the upload reader holds it to `uploadTimeout` and to `headersTimeout` without
 * a byte instead). A registry symbol: the server reads the mark without loading the upload code.
 */
export const UPLOADING: unique symbol = Symbol.for('fnapi.uploading') as never;

/** Whether the body stream is an upload being read by fnapi (it enforces its own timeouts). */
export function isUploading(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { [UPLOADING]?: boolean })[UPLOADING] === true;
}
