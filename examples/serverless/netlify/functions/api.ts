// Netlify Functions v2: served for every path (config.path), the Web Request in, a Response out.
import { NetlifyAdapter } from '@fnapi/adapters/netlify';
import { createApp } from '../../src/app.js';

export default new NetlifyAdapter(createApp(), { stripFunctionPath: true }).handle;

export const config = { path: '/*' };
