// An app with Scalar's page, bundled for workerd by the test beside it: no file system there, so the
// page loads the pinned @scalar/api-reference from the CDN with its integrity hash.
import { API, Router, z } from '@fnapi/core';

const v1 = new Router({ prefix: '/v1' });
const app = new API({ title: 'Scalar on Workers', docsUi: 'scalar', documents: { v1: { routers: [v1] } } });
v1.get('/hello/{name}', { response: z.object({ message: z.string() }), deprecated: '2026-12-01' }, ({ name }) => ({
  message: `Hello, ${name}!`,
}));
app.includeRouter(v1);

export default app;
