import { createApp } from './app.js';

const app = createApp();
const port = Number(process.env.PORT ?? 8000);
const { url } = await app.run({ host: process.env.HOST ?? '0.0.0.0', port });
console.log(`Docs: ${url}/docs  ReDoc: ${url}/redoc  Schema: ${url}/openapi.json`);
