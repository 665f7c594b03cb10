"""The README's first command, as a newcomer runs it in a terminal: `pnpm start` must answer on
port 8000 within 5 s (from sources, no build step), serve /docs, and stop cleanly on Ctrl-C (typed
into a real pseudo-terminal, so pnpm and the app both receive SIGINT as they would at a desk)."""
import os, pty, select, sys, time, urllib.request

LIMIT_S = 5.0
pid, fd = pty.fork()
if pid == 0:
    os.execvp('pnpm', ['pnpm', 'start'])

output = b''


def read(seconds):
    global output
    deadline = time.time() + seconds
    while time.time() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                data = os.read(fd, 65536)
            except OSError:
                return
            if not data:
                return
            output += data


def get(path):
    with urllib.request.urlopen(f'http://127.0.0.1:8000{path}', timeout=2) as res:
        return res.status, res.read().decode()


started = time.time()
answer = None
while time.time() - started < 120:
    read(0.1)
    try:
        answer = get('/hello/Ada?greeting=Hi')
        break
    except Exception:
        pass
elapsed = time.time() - started
failed = []
if answer != (200, '{"message":"Hi, Ada!"}'):
    failed.append(f'unexpected answer {answer!r}')
elif get('/docs')[0] != 200:
    failed.append('/docs did not answer 200')
print(f'example app: first answer {elapsed * 1000:.0f} ms after `pnpm start`; /hello/Ada?greeting=Hi -> {answer!r}; /docs OK')
if elapsed > LIMIT_S:
    failed.append(f'`pnpm start` took {elapsed:.1f} s to answer (limit {LIMIT_S:.0f} s)')

os.write(fd, b'\x03')  # Ctrl-C
read(8)
_, status = os.waitpid(pid, 0)
text = output.decode(errors='replace')
code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)
stopping, stopped = text.find('shutting down'), text.find('fnapi stopped')
if code != 0 or 'ELIFECYCLE' in text or stopping == -1 or stopped < stopping:
    failed.append(f'Ctrl-C did not stop `pnpm start` cleanly (exit {code})')
else:
    print('example app: Ctrl-C -> "shutting down", then "fnapi stopped", exit 0')
if failed:
    print(text[-3000:])
    print('\n'.join(failed))
    sys.exit(1)
