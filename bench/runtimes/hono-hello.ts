// The same hello in Hono, for reference.
import { Hono } from 'hono';

const app = new Hono();
app.get('/', (c) => c.json({ message: 'Hello, World!' }));

export default app;
