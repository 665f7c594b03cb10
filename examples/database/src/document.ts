// The example app as an entry for `fnapi openapi` / `fnapi routes` / `fnapi check` (it starts no
// server); its tables get their own prefix so a check does not touch the served example's rows.
import { createApp } from './app.js';

export default createApp({ logger: false, tablePrefix: process.env.TABLE_PREFIX ?? 'example_check' }).app;
