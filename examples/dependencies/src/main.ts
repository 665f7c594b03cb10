import { createApp } from './app.js';

const { app } = createApp();
const { url } = await app.run();
console.log(`Docs: ${url}/docs`);
