/**
 * The reports example end to end on each store: the web app answers an upload with 202 and a job id,
 * `fnapi worker` in another process builds the report, and the status endpoint serves it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestClient } from '@fnapi/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, postgresStore, redisStore } from '../../../packages/jobs/test/support.js';
import { createReports } from '../src/app.js';
import { startWorker, type WorkerProcess } from './support.js';

const stores = [await redisStore(), await postgresStore()];

for (const store of stores) {
  describe.skipIf(!store.available)(`reports on ${store.name}`, () => {
    const { prefix } = store.options();
    const uploadDir = mkdtempSync(join(tmpdir(), 'fnapi-reports-'));
    const { app } = createReports({ store: store.name, prefix, uploadDir, logger: false });
    let client: TestClient;
    let worker: WorkerProcess;

    beforeAll(async () => {
      client = await TestClient.start(app);
      worker = startWorker({ JOBS_STORE: store.name, JOBS_PREFIX: prefix, UPLOAD_DIR: uploadDir });
      await worker.seen((line) => typeof line.msg === 'string' && line.msg.startsWith('fnapi worker running'));
    }, 30_000);
    afterAll(async () => {
      worker?.child.kill('SIGKILL');
      await client?.close();
      await app.shutdown();
      await store.cleanup();
    });

    it('answers 202 with a job id; the worker process builds the report; the status endpoint serves it', async () => {
      const form = new FormData();
      form.append('data', new Blob(['apples,pears\n1,2\n3,4\n5,6.5\n'], { type: 'text/csv' }), 'fruit.csv');
      const res = await client.request('POST', '/reports', { form });
      expect(res.status).toBe(202);
      const { id, status } = res.json<{ id: string; status: string }>();
      expect(status).toBe(`/reports/${id}`);
      const report = await eventually(async () => {
        const body = (await client.request('GET', status)).json<{ state: string; result?: unknown }>();
        return body.state === 'completed' ? body : undefined;
      }, 15_000);
      expect(report).toEqual({
        id,
        state: 'completed',
        attempt: 1,
        result: { rows: 3, columns: { apples: 9, pears: 12.5 }, worker: worker.child.pid },
      });
      expect(worker.lines.some((line) => line.msg === 'report built' && line.jobId === id && line.job === 'build-report')).toBe(true);
    });

    it('an unknown job is 404; a request without the file is 422', async () => {
      expect((await client.request('GET', '/reports/nope')).status).toBe(404);
      expect((await client.request('POST', '/reports', { form: new FormData() })).status).toBe(422);
    });

    it('SIGTERM stops the worker gracefully: it exits 0', async () => {
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
      expect(worker.lines.some((line) => line.msg === 'fnapi worker stopped')).toBe(true);
    });
  });
}
