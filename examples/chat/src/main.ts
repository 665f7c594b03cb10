// One instance: `pnpm --filter @fnapi/example-chat start`. Several sharing Redis: set REDIS_URL on each.
import { RedisHub } from '@fnapi/cache';
import { Hub } from '@fnapi/core';
import { createChat } from './app.js';

const secret = process.env.JWT_SECRET ?? 'change-me-to-a-long-random-secret-for-hs256';
const hub = process.env.REDIS_URL ? new RedisHub({ url: process.env.REDIS_URL, keyPrefix: process.env.HUB_PREFIX }) : new Hub();
const app = createChat({ hub, secret, instance: process.env.INSTANCE });
const { url } = await app.run({ host: process.env.HOST ?? '0.0.0.0' });
console.log(`Chat: ${url}/  AsyncAPI: ${url}/asyncapi.json`);
