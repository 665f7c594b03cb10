import { createApp } from './app.js';

const app = createApp();
const { url } = await app.run({ host: process.env.HOST ?? '0.0.0.0' });
console.log(`Feed page: ${url}/  Docs: ${url}/docs  Export: ${url}/export`);
