/**
 * Peak RSS growth of an fnapi server (a child process) while one large file is uploaded to a
 * `file()` endpoint over loopback. The client streams the multipart body from a generator, so only
 * the server's memory is measured.
 *
 *   pnpm --filter @fnapi/bench exec node --conditions=@fnapi/source --import tsx upload.ts [megabytes] [--json]
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';

const MiB = 1024 * 1024;

export interface UploadMeasure {
  bytes: number;
  /** Server RSS before the upload (after a warm-up upload). */
  baselineRss: number;
  /** Highest RSS sampled (every 5 ms) while the upload was read and answered. */
  peakRss: number;
  growth: number;
  seconds: number;
}

async function serve(): Promise<void> {
  const { API, file } = await import('@fnapi/core');
  const app = new API({ logger: false, docsUrl: null, openapiUrl: null, uploadLimit: 2048 * MiB });
  let peak = 0;
  let sampler: NodeJS.Timeout | undefined;
  app.get('/memory/start', () => {
    clearInterval(sampler);
    peak = process.memoryUsage.rss();
    sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 5);
    return { rss: peak };
  });
  app.get('/memory/peak', () => {
    clearInterval(sampler);
    return { peak: Math.max(peak, process.memoryUsage.rss()) };
  });
  app.post('/upload', { params: { data: file({ maxSize: 2048 * MiB }) } }, async ({ data }) => {
    let size = 0;
    for await (const chunk of data.stream()) size += (chunk as Buffer).length;
    return { size, declared: data.size };
  });
  const running = await app.run({ host: '127.0.0.1', port: 0, handleSignals: true });
  process.stdout.write(`${JSON.stringify({ url: running.url })}\n`);
}

function call(url: string, method: string, bytes?: number): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    const boundary = 'fnapiMeasureBoundary';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="data"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const headers: Record<string, string | number> = {};
    if (bytes !== undefined) {
      headers['content-type'] = `multipart/form-data; boundary=${boundary}`;
      headers['content-length'] = head.length + bytes + tail.length;
    }
    const req = request(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(text)) : reject(new Error(`${res.statusCode} ${text}`))));
    });
    req.on('error', reject);
    if (bytes === undefined) {
      req.end();
      return;
    }
    void (async () => {
      const chunk = Buffer.alloc(64 * 1024, 0x5a);
      req.write(head);
      for (let sent = 0; sent < bytes; sent += chunk.length) {
        const part = bytes - sent >= chunk.length ? chunk : chunk.subarray(0, bytes - sent);
        if (!req.write(part)) await once(req, 'drain');
      }
      req.end(tail);
    })().catch(reject);
  });
}

/** Starts a server child, uploads `bytes`, returns the server's RSS figures. */
export async function measureUpload(bytes: number): Promise<UploadMeasure> {
  const child = spawn(process.execPath, ['--conditions=@fnapi/source', '--import', 'tsx', fileURLToPath(import.meta.url), '--serve'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const [line] = (await once(child.stdout!, 'data')) as [Buffer];
    const { url } = JSON.parse(line.toString().split('\n')[0]!) as { url: string };
    await call(`${url}/upload`, 'POST', 2 * MiB); // warm-up: parser, file-type and the spool directory loaded
    const { rss } = await call(`${url}/memory/start`, 'GET');
    const started = performance.now();
    const answer = await call(`${url}/upload`, 'POST', bytes);
    const seconds = (performance.now() - started) / 1000;
    const { peak } = await call(`${url}/memory/peak`, 'GET');
    if (answer.size !== bytes || answer.declared !== bytes) throw new Error(`server read ${answer.size} bytes of ${bytes}`);
    return { bytes, baselineRss: rss!, peakRss: peak!, growth: peak! - rss!, seconds };
  } finally {
    child.kill('SIGTERM');
  }
}

if (process.argv.includes('--serve')) {
  await serve();
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const megabytes = Number(process.argv[2] ?? 200);
  const m = await measureUpload(megabytes * 1_000_000);
  const mb = (n: number) => (n / MiB).toFixed(1);
  // `--json`: the figures as one line, for core's upload-memory test, which runs this program.
  if (process.argv.includes('--json')) console.log(JSON.stringify(m));
  else
    console.log(
      `upload of ${megabytes} MB: server RSS ${mb(m.baselineRss)} MiB before, peak ${mb(m.peakRss)} MiB, growth ${mb(m.growth)} MiB, ${m.seconds.toFixed(1)} s`,
    );
}
