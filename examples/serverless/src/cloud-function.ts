// Google Cloud Functions (2nd gen), an HTTP function:
//   gcloud functions deploy api --gen2 --runtime=nodejs20 --trigger-http --entry-point=api
// Locally: npx functions-framework --target=api --source=dist/cloud-function.js
import * as functions from '@google-cloud/functions-framework';
import { CloudFunctionAdapter } from '@fnapi/adapters/cloud-function';
import { createApp } from './app.js';

const adapter = new CloudFunctionAdapter(createApp());

functions.http('api', adapter.handle as unknown as functions.HttpFunction);
export const api = adapter.handle;
