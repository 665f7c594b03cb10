// WebSocket echo round trips for measure-ws.sh: C connections, each sending its next message when
// the last came back, `warm` round trips in all, then (after "warm" on stdout and a line on stdin)
// N more over the same connections; prints "counted" and waits for another line before closing.
//   node ws-client.mjs <url> <N> <warm> [C=16]
import { createInterface } from 'node:readline';
import { WebSocket } from 'ws';

const [url, count, warm, connections] = process.argv.slice(2);
const sockets = await Promise.all(
  Array.from(
    { length: Number(connections ?? 16) },
    () =>
      new Promise((resolve, reject) => {
        const socket = new WebSocket(url, { perMessageDeflate: false });
        socket.once('open', () => resolve(socket));
        socket.once('error', reject);
      }),
  ),
);
const payload = JSON.stringify({ text: 'x'.repeat(24) });
let wanted = 0;
let sent = 0;
let received = 0;
let finished;
for (const socket of sockets) {
  socket.on('message', (data) => {
    if (data.toString() !== payload) throw new Error(`unexpected echo ${data}`);
    received++;
    if (received === wanted) finished();
    else if (sent < wanted) {
      sent++;
      socket.send(payload);
    }
  });
}

/** Sends `total` round trips, one in flight per connection. */
function trips(total) {
  wanted = total;
  sent = 0;
  received = 0;
  return new Promise((resolve) => {
    finished = resolve;
    for (const socket of sockets) {
      if (sent >= total) break;
      sent++;
      socket.send(payload);
    }
  });
}

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
await trips(Number(warm));
process.stdout.write('warm\n');
await lines.next();
await trips(Number(count));
process.stdout.write('counted\n');
await lines.next();
for (const socket of sockets) socket.terminate();
process.exit(0);
