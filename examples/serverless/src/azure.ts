// Azure Functions, Node.js programming model v4. With host.json's `extensions.http.routePrefix`
// left at its default, paths start with /api: mount the app's routes there, or set routePrefix "".
import { app as azure } from '@azure/functions';
import { AzureFunctionAdapter } from '@fnapi/adapters/azure';
import { createApp } from './app.js';

const adapter = new AzureFunctionAdapter(createApp());

// Lets a StreamingResponse reach the client as it is produced.
azure.setup({ enableHttpStream: true });
azure.http('api', {
  route: '{*path}',
  methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'],
  authLevel: 'anonymous',
  handler: adapter.handle,
});

export const handler = adapter.handle;
