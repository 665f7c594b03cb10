// The hello Worker / Bun / Node app of the runtimes benchmark, in fnapi.
import { API } from '@fnapi/core';

const app = new API({ logger: false });
app.get('/', () => ({ message: 'Hello, World!' }));

export default app;
