// The example app as an entry for `fnapi openapi` / `fnapi client` / `fnapi routes` (it starts no server
// and no worker; the job store is reached only when the app starts).
import { createReports } from './app.js';

export default createReports({ logger: false }).app;
