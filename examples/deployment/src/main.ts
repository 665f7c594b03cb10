import { createLogger } from '@fnapi/monitoring';
import { createDeploymentApp, settingsFromEnv } from './app.js';

// One instance; run several behind a balancer (src/haproxy.ts writes an HAProxy configuration).
// createLogger adds trace_id/span_id to the lines written inside a traced request.
const app = createDeploymentApp(settingsFromEnv(), { logger: createLogger() });
await app.run({ host: process.env.HOST ?? '0.0.0.0' });
