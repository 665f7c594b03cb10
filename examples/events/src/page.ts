/** The page that follows the feed with the browser's `EventSource` (it reconnects by itself). */
export const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>fnapi live feed</title>
<link rel="icon" href="data:,">
<style>
  body { font: 16px/1.4 system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; }
  #status { color: #666; }
  li time { color: #888; font-size: 0.8em; margin-left: 0.5em; }
</style>
</head>
<body>
<h1>Live feed</h1>
<p id="status">connecting…</p>
<form id="post"><input name="text" placeholder="Say something" required> <button>Post</button></form>
<ul id="messages"></ul>
<script type="module">
  const status = document.getElementById('status');
  const list = document.getElementById('messages');
  const source = new EventSource('/feed');
  source.addEventListener('open', () => { status.textContent = 'connected'; });
  source.addEventListener('error', () => { status.textContent = 'reconnecting…'; });
  source.addEventListener('welcome', (event) => {
    status.textContent = 'connected (' + JSON.parse(event.data).latest + ' messages so far)';
  });
  source.addEventListener('message', (event) => {
    const message = JSON.parse(event.data);
    if (document.getElementById('message-' + message.id)) return;
    const item = document.createElement('li');
    item.id = 'message-' + message.id;
    item.textContent = message.text;
    const time = document.createElement('time');
    time.textContent = new Date(message.at).toLocaleTimeString();
    item.append(time);
    list.append(item);
  });
  document.getElementById('post').addEventListener('submit', async (event) => {
    event.preventDefault();
    const input = event.target.elements.text;
    await fetch('/messages', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: input.value }) });
    input.value = '';
  });
</script>
</body>
</html>
`;
