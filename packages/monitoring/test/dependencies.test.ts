/**
 * The app's dependencies and the probes: an app-level guard never covers the health probes, and the
 * readiness probe answers 503 until the app's 'app' dependencies have been made.
 */
import { API, dependency, UnauthorizedError } from '@fnapi/core';
import { TestClient } from '@fnapi/core/testing';
import { describe, expect, it } from 'vitest';
import { healthEndpoints } from '../src/index.js';

describe('health probes and app dependencies', () => {
  it("an app-level guard leaves /livez and /readyz open; /readyz is 503 until the 'app' values are made", async () => {
    const guard = dependency({ name: 'guard' }, () => {
      throw new UnauthorizedError('no credentials');
    });
    let release: () => void = () => {};
    const opened = new Promise<void>((resolve) => {
      release = resolve;
    });
    const pool = dependency({ lifetime: 'app' }, async () => {
      await opened;
      return 'pool';
    });
    const app = new API({ logger: false, dependencies: [guard] });
    app.get('/data', { uses: { pool } }, ({ pool }) => ({ pool }));
    healthEndpoints(app);
    const client = await TestClient.start(app);
    try {
      const waiting = client.get('/data');
      // Startup is under way and the pool is not made yet: not ready.
      expect((await client.get('/readyz')).status).toBe(503);
      expect((await client.get('/livez')).status).toBe(200);
      release();
      expect((await waiting).status).toBe(401);
      expect((await client.get('/readyz')).status).toBe(200);
    } finally {
      await client.close();
    }
  });
});
