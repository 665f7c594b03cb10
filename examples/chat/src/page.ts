/** The chat page: sign in with a name, join a room, talk; no build step, no dependencies. */
export function chatPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>fnapi chat</title>
<link rel="icon" href="data:,">
<style>
  body { font: 15px system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; }
  #messages { list-style: none; padding: 0; min-height: 10rem; border: 1px solid #ccc; }
  #messages li { padding: .25rem .5rem; }
  .from { font-weight: 600; margin-right: .5rem; }
</style>
</head>
<body>
<h1>Chat</h1>
<form id="join">
  <input name="name" placeholder="your name" required>
  <input name="room" placeholder="room" value="lobby" required>
  <button>Join</button>
</form>
<p id="status">not connected</p>
<ul id="messages"></ul>
<form id="say">
  <input name="text" placeholder="message" autocomplete="off" required>
  <button>Send</button>
</form>
<script type="module">
const status = document.getElementById('status');
const list = document.getElementById('messages');
let socket;
document.getElementById('join').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const login = await fetch('/login', {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: form.get('name') }),
  });
  if (!login.ok) { status.textContent = 'login refused: ' + login.status; return; }
  const { token } = await login.json();
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const room = encodeURIComponent(form.get('room'));
  socket = new WebSocket(scheme + '//' + location.host + '/rooms/' + room + '?token=' + encodeURIComponent(token));
  socket.addEventListener('open', () => { status.textContent = 'connected to ' + form.get('room'); });
  socket.addEventListener('close', (e) => { status.textContent = 'closed (' + e.code + ')'; });
  socket.addEventListener('message', (e) => {
    const line = JSON.parse(e.data);
    const item = document.createElement('li');
    const from = document.createElement('span');
    from.className = 'from';
    from.textContent = line.from;
    item.append(from, document.createTextNode(line.text));
    list.append(item);
  });
});
document.getElementById('say').addEventListener('submit', (event) => {
  event.preventDefault();
  const input = event.target.elements.text;
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ text: input.value }));
  input.value = '';
});
</script>
</body>
</html>
`;
}
