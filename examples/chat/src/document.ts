// The example app as an entry for `fnapi openapi` / `fnapi client` / `fnapi routes` (it starts no server
// and needs no Redis: one instance's in-memory hub, and a secret that signs nothing served).
import { Hub } from '@fnapi/core';
import { createChat } from './app.js';

export default createChat({ hub: new Hub(), secret: 'document-only-secret-that-signs-no-served-token', logger: false });
