import { createApp } from './app.js';

const { url } = await createApp().run({ host: process.env.HOST ?? '127.0.0.1' });
console.log(`Docs: ${url}/docs  Schema: ${url}/openapi.json`);
