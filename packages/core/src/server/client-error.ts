import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { isUploading } from '../uploads/upload-timeout.js';

// What node:http itself writes for a client error when nobody listens (lib/_http_server.js).
const ANSWERS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: 'HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 'HTTP/1.1 413 Payload Too Large\r\nConnection: close\r\n\r\n',
  ERR_HTTP_REQUEST_TIMEOUT: 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n',
};
const BAD_REQUEST = 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n';

interface SocketWithResponse extends Socket {
  _httpMessage?: { headersSent: boolean; req?: unknown } | null;
}

/**
 * node:http's answer to client errors, but `requestTimeout` does not cut off an upload that fnapi is
 * reading: that body is held to `uploadTimeout`, and to `headersTimeout` without a byte, by the
 * upload reader. (node:http reports a connection's timeout once; the reader takes over from there.)
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, raw: Socket) => {
    const socket = raw as SocketWithResponse;
    const current = socket._httpMessage;
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && current && isUploading(current.req)) return;
    if (socket.writable && !current?.headersSent) socket.write(ANSWERS[error.code ?? ''] ?? BAD_REQUEST);
    socket.destroy(error);
  });
}
