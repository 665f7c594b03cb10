// AWS Lambda behind API Gateway (REST or HTTP API), a Function URL or an ALB: `handler` answers
// every kind of event in its own result shape. Deploy with the handler `lambda.handler`.
import { LambdaAdapter } from '@fnapi/adapters/lambda';
import { createApp } from './app.js';

// Created once per container, outside the handler; the app's onStartup runs before the first event.
const adapter = new LambdaAdapter(createApp(), { stripStagePath: true });

export const handler = adapter.handle;
