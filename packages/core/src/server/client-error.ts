import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { HTTPError } from '../http/errors.js';
import { isUploading } from '../uploads/upload-timeout.js';
import { refuse, writeRaw } from '../wire/refuse.js';
import type { SerializeContext } from '../wire/written.js';

// node:http's client errors, as it answers them when nobody listens (lib/_http_server.js).
const ANSWERS: Record<string, [status: number, message: string]> = {
  HPE_HEADER_OVERFLOW: [431, 'The request line and headers are larger than the server accepts'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'The chunk extensions are larger than the server accepts'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'The request was not received in time'],
};

interface SocketWithResponse extends Socket {
  _httpMessage?: { headersSent: boolean; req?: unknown } | null;
}

/**
 * node:http's answer to client errors, written by the wire's refusal (a problem body), but
 * `requestTimeout` does not cut off an upload that fnapi is reading: that body is held to
 * `uploadTimeout`, and to `headersTimeout` without a byte, by the upload reader. (node:http reports a
 * connection's timeout once; the reader takes over from there.)
 */
export function answerClientErrors(server: Server, context: SerializeContext): void {
  server.on('clientError', (error: NodeJS.ErrnoException, raw: Socket) => {
    const socket = raw as SocketWithResponse;
    const current = socket._httpMessage;
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && current && isUploading(current.req)) return;
    if (socket.writable && !current?.headersSent) {
      const [status, message] = ANSWERS[error.code ?? ''] ?? [400, 'The request could not be parsed'];
      writeRaw(socket, refuse(new HTTPError(status, message), context));
    }
    socket.destroy(error);
  });
}
