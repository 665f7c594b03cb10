// The serverless example's routes in Hono, served by Hono's AWS Lambda adapter (`hono/aws-lambda`):
// the peer of examples/serverless/src/lambda.ts in the cold-start benchmark.
import { zValidator } from '@hono/zod-validator';
import { handle } from 'hono/aws-lambda';
import { streamText } from 'hono/streaming';
import { z } from 'zod';
import { createHonoApp } from '../servers/hono-app.js';

export const app = createHonoApp();

app.get('/countdown', zValidator('query', z.object({ from: z.coerce.number().int().min(1).max(10).default(3) })), (c) => {
  const { from } = c.req.valid('query');
  return streamText(c, async (stream) => {
    for (let n = from; n > 0; n--) {
      await stream.write(`${n}\n`);
      await stream.sleep(100);
    }
    await stream.write('liftoff\n');
  });
});

export const handler = handle(app);
