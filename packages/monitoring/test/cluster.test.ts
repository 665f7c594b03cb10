/**
 * Under app.run({ workers: 2 }) /metrics answers the sum over both workers, whichever takes it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';

const fixture = join(dirname(fileURLToPath(import.meta.url)), 'fixtures/cluster-metrics.ts');

async function get(url: string): Promise<string> {
  // A fresh connection per request, so the primary spreads them over the workers.
  const agent = new Agent({ connections: 1 });
  try {
    const res = await request(url, { dispatcher: agent, headers: { connection: 'close' } });
    return await res.body.text();
  } finally {
    await agent.close();
  }
}

describe('metrics across cluster workers', () => {
  let child: ChildProcess;
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('counts the requests that all workers served, whichever worker answers /metrics', async () => {
    child = spawn(process.execPath, ['--conditions=@fnapi/source', '--import', 'tsx', fixture], { stdio: ['ignore', 'pipe', 'inherit'] });
    const url = await new Promise<string>((resolve, reject) => {
      let buffer = '';
      child.stdout!.on('data', (d: Buffer) => {
        buffer += d;
        const match = /\{"url":"([^"]+)"\}/.exec(buffer);
        if (match) resolve(match[1]!);
      });
      child.on('exit', (code) => reject(new Error(`exited ${code}`)));
    });
    const pids = new Set<number>();
    for (let i = 0; i < 30; i++) pids.add((JSON.parse(await get(`${url}/pid`)) as { pid: number }).pid);
    expect(pids.size).toBe(2);
    for (let i = 0; i < 4; i++) {
      const text = await get(`${url}/metrics`);
      const line = /^http_requests_total\{method="GET",route="\/pid",status="200"\} (\d+)$/m.exec(text);
      expect(Number(line?.[1]), text.slice(0, 300)).toBe(30);
    }
  });
});
