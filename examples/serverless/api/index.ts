// Vercel, Node runtime: every path is rewritten to this function by vercel.json.
import { VercelAdapter } from '@fnapi/adapters/vercel';
import { createApp } from '../src/app.js';

export default new VercelAdapter(createApp()).handle;
