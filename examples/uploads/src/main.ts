import { createApp } from './app.js';

const app = createApp();
const { url } = await app.run({ host: process.env.HOST ?? '0.0.0.0' });
console.log(`Docs: ${url}/docs  (try POST /avatars/{user_id} with a picture)`);
