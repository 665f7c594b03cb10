// The example app as an entry for `fnapi openapi` / `fnapi client` / `fnapi routes` / `fnapi check` (it starts no server).
import { createApp } from './app.js';

export default createApp();
