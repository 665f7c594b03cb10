// The web tier: answers uploads and status requests; `pnpm worker` (fnapi worker src/app.ts) builds the reports.
import { app } from './app.js';

await app.run();
