// The serverless example's Lambda entry with COLDSTART_ROUTES more endpoints (`coldstart --routes N`):
// what a cold start costs as an app grows. Half are GETs with path and query parameters, half POSTs
// with a body model, as in the example; the peer is hono-lambda-routes.ts.
import { LambdaAdapter } from '@fnapi/adapters/lambda';
import { z } from '@fnapi/core';
import { createApp } from '../../examples/serverless/src/app.js';

const app = createApp();
const extra = Number(process.env.COLDSTART_ROUTES ?? 0);
for (let i = 0; i < extra / 2; i++) {
  app.get(
    `/extra${i}/{id}/items/{itemId}`,
    { params: { id: z.int(), itemId: z.int(), page: z.int().default(1), limit: z.int().default(20) } },
    ({ id, itemId, page, limit }) => ({ id, itemId, page, limit }),
  );
  app.post(
    `/extra${i}`,
    { params: { item: z.object({ name: z.string().min(2), email: z.email(), age: z.int().min(18) }) }, statusCode: 201 },
    ({ item }) => item,
  );
}

export const handler = new LambdaAdapter(app, { stripStagePath: true }).handle;
