// Reports built after the answer: POST /reports takes a CSV upload and answers 202 with a job id at
// once; the `build-report` job (run by `fnapi worker src/app.ts`, in another process) reads the file
// and sums its columns; GET /reports/{id} says how far it got, and the report once done.
//
//   JOBS_STORE=redis|postgres  REDIS_URL=…  DATABASE_URL=…  JOBS_PREFIX=…  UPLOAD_DIR=…
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API, type APIOptions, file, NotFoundError, z } from '@fnapi/core';
import { Jobs } from '@fnapi/jobs';

export interface ReportsOptions {
  store?: 'redis' | 'postgres';
  prefix?: string;
  /** Where uploads wait for the worker: a directory both processes see. */
  uploadDir?: string;
  /** Run the workers in this process too (default false: `fnapi worker` runs them). */
  workers?: boolean;
  logger?: APIOptions['logger'];
}

const Report = z.object({ rows: z.int(), columns: z.record(z.string(), z.number()), worker: z.int() });

export function createReports(options: ReportsOptions = {}) {
  const store = options.store ?? (process.env.JOBS_STORE === 'postgres' ? 'postgres' : 'redis');
  const uploadDir = options.uploadDir ?? process.env.UPLOAD_DIR ?? join(tmpdir(), 'fnapi-reports');
  mkdirSync(uploadDir, { recursive: true });
  const app = new API({
    title: 'Reports',
    logger: options.logger,
    servers: [{ url: '/', description: 'The server serving this document' }],
    license: { name: 'MIT', identifier: 'MIT' },
  });
  const jobs = new Jobs({
    ...(store === 'postgres'
      ? { postgres: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' }
      : { redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' }),
    prefix: options.prefix ?? process.env.JOBS_PREFIX ?? (store === 'postgres' ? 'fnapi_reports' : 'fnapi-reports'),
  });

  const buildReport = jobs.define(
    'build-report',
    { payload: z.object({ upload: z.uuid(), name: z.string() }), attempts: 3, backoff: { type: 'exponential', delay: 1 }, timeout: 60 },
    async ({ upload, name }, job) => {
      const path = join(uploadDir, `${upload}.csv`);
      const [header = '', ...rows] = (await readFile(path, 'utf8')).trim().split(/\r?\n/);
      const names = header.split(',').map((column) => column.trim());
      const columns: Record<string, number> = Object.fromEntries(names.map((column) => [column, 0]));
      for (const row of rows) {
        row.split(',').forEach((cell, i) => {
          const value = Number(cell);
          if (Number.isFinite(value) && names[i] !== undefined) columns[names[i]] = (columns[names[i]] ?? 0) + value;
        });
      }
      job.logger.info({ name, rows: rows.length }, 'report built');
      await rm(path, { force: true });
      return { rows: rows.length, columns, worker: process.pid };
    },
  );
  jobs.attach(app, { workers: options.workers ?? false });

  app.post(
    '/reports',
    {
      params: { data: file({ maxSize: 5_000_000 }) },
      statusCode: 202,
      summary: 'Upload a CSV; the report is built after the answer',
      response: z.object({ id: z.string(), status: z.string() }),
    },
    async ({ data }) => {
      const upload = randomUUID();
      await writeFile(join(uploadDir, `${upload}.csv`), await data.bytes());
      const job = await buildReport.enqueue({ upload, name: data.name });
      return { id: job.id, status: `/reports/${job.id}` };
    },
  );

  app.get(
    '/reports/{id}',
    {
      summary: 'How far a report got, and the report once built',
      params: { id: z.string().max(200) },
      response: z.object({
        id: z.string(),
        state: z.enum(['waiting', 'delayed', 'active', 'completed', 'failed']),
        attempt: z.int(),
        result: Report.nullable().optional(),
        error: z.string().optional(),
      }),
    },
    async ({ id }) => {
      const info = await buildReport.get(id);
      if (info === undefined) throw new NotFoundError(`No report job ${id}`);
      return info as never;
    },
  );

  return { app, jobs, buildReport };
}

export const { app } = createReports();
export default app;
