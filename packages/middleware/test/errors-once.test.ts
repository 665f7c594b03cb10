/**
 * ErrorHandlingMiddleware goes through core's one error path: plugins hear of an error once, and a
 * 422 it answers follows the app's `validationError` format.
 */
import { API, RequestValidationError, z } from '@fnapi/core';
import type { PluginLike } from '@fnapi/core/extend';
import { describe, expect, it } from 'vitest';
import { ErrorHandlingMiddleware } from '../src/index.js';

describe('ErrorHandlingMiddleware and the app’s error path', () => {
  it('a handler error reaches onError and error_occurred once, and the middleware answers it', async () => {
    const errors: unknown[] = [];
    const events: unknown[] = [];
    const plugin: PluginLike = {
      getMetadata: () => ({ name: 'recorder', version: '1' }),
      onError: (error) => {
        errors.push(error);
      },
      registeredHooks: () => [['error_occurred', (payload: { error: unknown }) => events.push(payload.error)]],
    };
    const app = new API({ logger: false });
    app.pluginManager.register(plugin);
    app.addMiddleware(new ErrorHandlingMiddleware({ debug: true, logExceptions: false }));
    app.get('/boom', () => {
      throw new Error('handler failed');
    });
    const res = await app.inject('/boom');
    expect(res.status).toBe(500);
    expect(res.json<{ debug: { message: string; stack?: string } }>().debug).toEqual({ name: 'Error', message: 'handler failed' });
    expect(errors).toHaveLength(1);
    expect(events).toEqual(errors);
  });

  it('answers a 422 in the app’s validationError format', async () => {
    const app = new API({
      logger: false,
      validationError: { schema: z.object({ problems: z.number() }), format: (issues) => ({ problems: issues.length }) },
    });
    app.addMiddleware(new ErrorHandlingMiddleware());
    app.addMiddleware(() => {
      throw new RequestValidationError([{ in: 'query', path: ['a'], message: 'bad', code: 'custom' }]);
    });
    app.get('/v', () => 'never');
    const res = await app.inject('/v');
    expect(res.status).toBe(422);
    expect(res.json()).toEqual({ problems: 1 });
  });
});
