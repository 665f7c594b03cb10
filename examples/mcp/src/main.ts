import { app } from './app.js';

await app.run();
