import { createApp } from './app.js';

// HOST/PORT as everywhere; WORKERS=n (or auto) serves from n processes on one port.
const workers = process.env.WORKERS === 'auto' ? 'auto' : process.env.WORKERS ? Number(process.env.WORKERS) : undefined;
const app = createApp();
const { url } = await app.run({ host: process.env.HOST ?? '0.0.0.0', workers });
console.log(`Docs: ${url}/docs  ReDoc: ${url}/redoc  Schema: ${url}/openapi.json`);
