// AWS Lambda with response streaming (a Function URL with InvokeMode RESPONSE_STREAM, or a REST API
// integration with response streaming): `/countdown` reaches the client line by line.
import { LambdaAdapter } from '@fnapi/adapters/lambda';
import { createApp } from './app.js';

export const handler = new LambdaAdapter(createApp()).streamHandler();
