/**
 * Endpoint definitions (`api(options)(fn)`), decorated classes, operationIds and registration errors.
 */
import { describe, expect, it } from 'vitest';
import { API, api, type Request, Router, z } from '../src/index.js';
import { isEndpointDefinition } from '../src/serve/endpoint.js';
import { type Case, runTable, serve, viaInject } from './helpers.js';

type Doc = { paths: Record<string, Record<string, { operationId: string; tags?: string[]; summary?: string; deprecated?: boolean }>> };

// Endpoint definitions that live on their own, as in a module of their own.
export const getGreeting = api({ route: '/greetings/{name}', params: { loud: z.boolean().default(false) } })(function greet({
  name,
  loud,
}) {
  const text = `Hello, ${name}!`;
  return { text: loud ? text.toUpperCase() : text };
});
const noteDefinition = api({ route: '/notes', method: 'POST', params: { text: z.string() }, statusCode: 201 })(async function createNote({
  text,
}) {
  return { text };
});
const anonymous = api({ route: '/anonymous/{id}', method: 'PUT' })(({ id }) => ({ id }));

class Users {
  private readonly store = new Map<number, string>([[1, 'Ada']]);
  readonly label = 'users';

  @api({ route: '/users/{user_id}', method: 'GET', params: { user_id: z.int() }, tags: ['users'] })
  async get({ user_id }: { user_id: number }) {
    const name = this.store.get(user_id);
    return name === undefined ? [{ missing: user_id }, 404] : { user_id, name, from: this.label };
  }

  @api({ route: '/users', method: 'POST', params: { name: z.string().min(2) }, statusCode: 201 })
  create({ name }: { name: string }, request: Request) {
    const id = this.store.size + 1;
    this.store.set(id, name);
    return { id, name, method: request.method };
  }

  @api({ route: '/users/count', method: 'GET', operationId: 'countUsers' })
  count() {
    return { count: this.store.size };
  }

  // Not decorated: not an endpoint.
  helper() {
    return 'not served';
  }
}

class Admin {
  @api({ route: '/health' })
  health() {
    return { ok: true, self: typeof this.health === 'function' };
  }
}

function build(): API {
  const app = new API({ logger: false });
  app.include(getGreeting, [noteDefinition, anonymous]);
  app.include(new Users());
  const admin = new Router({ prefix: '/admin', tags: ['admin'] });
  admin.include(new Admin());
  admin.include(
    api({ route: '/stats' })(function adminStats() {
      return { stats: true };
    }),
  );
  app.includeRouter(admin);
  app.get('/short/{x}', ({ x }) => ({ x }));
  app.get('/short-opts', { params: { n: z.int() }, summary: 'With options', deprecated: true }, ({ n }) => ({ n }));
  app.put('/short-put', { params: { v: z.string() } }, ({ v }) => ({ v }));
  app.patch('/short-patch', { params: { v: z.int() } }, ({ v }) => ({ v }));
  app.post('/short-post', () => 'posted');
  app.delete('/short-delete/{id}', () => undefined);
  app.api({ route: '/default-method' }, () => 'GET it is');
  app.api({ route: '/lower', method: 'post' }, () => 'method upper-cased');
  return app;
}

const cases: Case[] = [
  { name: 'api(options)(fn) + app.include', call: { path: '/greetings/Ada' }, status: 200, json: { text: 'Hello, Ada!' } },
  { name: 'a definition with a query param', call: { path: '/greetings/Ada?loud=1' }, status: 200, json: { text: 'HELLO, ADA!' } },
  {
    name: 'definitions passed in an array',
    call: { method: 'POST', path: '/notes', json: { text: 'n' } },
    status: 201,
    json: { text: 'n' },
  },
  { name: 'an anonymous definition', call: { method: 'PUT', path: '/anonymous/9' }, status: 200, json: { id: '9' } },
  {
    name: 'a decorated method, this bound',
    call: { path: '/users/1' },
    status: 200,
    json: { user_id: 1, name: 'Ada', from: 'users' },
  },
  {
    name: 'a decorated method returning a tuple',
    call: { path: '/users/5' },
    status: 404,
    json: { missing: 5 },
    contentType: 'application/json',
  },
  {
    name: 'a decorated method validates its params',
    call: { method: 'POST', path: '/users', json: { name: 'A' } },
    status: 422,
  },
  {
    name: 'a decorated method with an explicit operationId',
    call: { path: '/users/count' },
    status: 200,
    check: (r) => expect(typeof r.json().count).toBe('number'),
  },
  { name: 'a decorated class in a router', call: { path: '/admin/health' }, status: 200, json: { ok: true, self: true } },
  { name: 'router.include(def)', call: { path: '/admin/stats' }, status: 200, json: { stats: true } },
  { name: 'undecorated methods are not served', call: { path: '/helper' }, status: 404 },
  { name: 'app.get shorthand', call: { path: '/short/q' }, status: 200, json: { x: 'q' } },
  { name: 'app.get shorthand with options', call: { path: '/short-opts?n=4' }, status: 200, json: { n: 4 } },
  { name: 'app.put shorthand', call: { method: 'PUT', path: '/short-put', json: { v: 'x' } }, status: 200, json: { v: 'x' } },
  { name: 'app.patch shorthand', call: { method: 'PATCH', path: '/short-patch', json: { v: 3 } }, status: 200, json: { v: 3 } },
  { name: 'app.post shorthand', call: { method: 'POST', path: '/short-post' }, status: 200, json: 'posted' },
  { name: 'app.delete shorthand', call: { method: 'DELETE', path: '/short-delete/3' }, status: 204, text: '', contentType: null },
  { name: 'method defaults to GET', call: { path: '/default-method' }, status: 200, json: 'GET it is' },
  { name: 'a lower-case method', call: { method: 'POST', path: '/lower' }, status: 200, json: 'method upper-cased' },
];

describe('endpoint definitions and decorators', () => {
  const served = serve(build);
  runTable(served, cases);

  it('decorated state is per instance and persists across requests', async () => {
    const created = await served.send('http', { method: 'POST', path: '/users', json: { name: 'Grace' } });
    expect(created.status).toBe(201);
    expect(created.json()).toEqual({ id: expect.any(Number), name: 'Grace', method: 'POST' });
    const id = created.json().id as number;
    const fetched = await served.send('fetch', { path: `/users/${id}` });
    expect(fetched.json()).toEqual({ user_id: id, name: 'Grace', from: 'users' });
  });

  it('derives operationIds from the function name, ClassName_method, or method and path', () => {
    const ids = Object.fromEntries(served.app.routes.map((r) => [`${r.method} ${r.route}`, r.operationId]));
    expect(ids).toEqual({
      'GET /greetings/{name}': 'greet',
      'POST /notes': 'createNote',
      'PUT /anonymous/{id}': 'put_anonymous_id',
      'GET /users/{user_id}': 'Users_get',
      'POST /users': 'Users_create',
      'GET /users/count': 'countUsers',
      'GET /admin/health': 'Admin_health',
      'GET /admin/stats': 'adminStats',
      'GET /short/{x}': 'get_short_x',
      'GET /short-opts': 'get_short_opts',
      'PUT /short-put': 'put_short_put',
      'PATCH /short-patch': 'patch_short_patch',
      'POST /short-post': 'post_short_post',
      'DELETE /short-delete/{id}': 'delete_short_delete_id',
      'GET /default-method': 'get_default_method',
      'POST /lower': 'post_lower',
    });
    const doc = served.app.openapi() as Doc;
    expect(doc.paths['/users/{user_id}']!.get).toMatchObject({ operationId: 'Users_get', tags: ['users'] });
    expect(doc.paths['/admin/health']!.get).toMatchObject({ operationId: 'Admin_health', tags: ['admin'] });
    expect(doc.paths['/short-opts']!.get).toMatchObject({ summary: 'With options', deprecated: true });
  });

  it('api(options)(fn) returns a definition, not a registration', () => {
    expect(isEndpointDefinition(getGreeting)).toBe(true);
    expect(getGreeting.options.route).toBe('/greetings/{name}');
    expect(getGreeting.name).toBe('greet');
  });
});

describe('registration errors', () => {
  it('a reused handler name gets name + method + path; only explicit duplicates are refused', async () => {
    const app = new API({ logger: false });
    const who = (_input: unknown, request: { path: string }) => request.path;
    app.get('/a', who);
    app.get('/jwks/two', who);
    app.post('/jwks/two', who);
    app.get('/b', function list() {
      return 'b';
    });
    app.get('/c', function list() {
      return 'c';
    });
    expect(app.routes.map((r) => r.operationId)).toEqual(['who', 'who_get_jwks_two', 'who_post_jwks_two', 'list', 'list_get_c']);
    expect((await viaInject(app, { path: '/jwks/two' })).json()).toBe('/jwks/two');
    // A default that an explicit id already holds moves aside too.
    app.get('/d', { operationId: 'report' }, () => 1);
    app.get('/e', function report() {
      return 2;
    });
    expect(app.routes.at(-1)?.operationId).toBe('report_get_e');
    // An explicit id that repeats a default one is refused, naming both endpoints, and changes nothing.
    expect(() => app.get('/f', { operationId: 'list' }, () => 3)).toThrow(
      'operationId "list" is used by both GET /b and GET /f; give one of them another operationId',
    );
    expect(app.routes.map((r) => r.route)).not.toContain('/f');
    expect((await viaInject(app, { path: '/f' })).status).toBe(404);
  });

  it('an explicit operationId can collide too', () => {
    const app = new API({ logger: false });
    app.get('/a', { operationId: 'same' }, () => 1);
    expect(() => app.post('/b', { operationId: 'same' }, () => 2)).toThrow(/"same" is used by both GET \/a and POST \/b/);
  });

  it('two decorated classes with the same method names do not collide', () => {
    class A {
      @api({ route: '/a' })
      get() {
        return 'a';
      }
    }
    class B {
      @api({ route: '/b' })
      get() {
        return 'b';
      }
    }
    const app = new API({ logger: false });
    app.include(new A(), new B());
    expect(app.routes.map((r) => r.operationId)).toEqual(['A_get', 'B_get']);
  });

  it('two instances of one decorated class collide', () => {
    class C {
      @api({ route: '/c' })
      get() {
        return 'c';
      }
    }
    const app = new API({ logger: false });
    app.include(new C());
    expect(() => app.include(new C())).toThrow(/operationId "C_get"|registered twice/);
  });

  it('registering the same method and path twice throws', async () => {
    const app = new API({ logger: false });
    app.get('/twice/{id}', { operationId: 'first' }, () => 'first');
    expect(() => app.get('/twice/{id}', { operationId: 'second' }, () => 'second')).toThrow('GET /twice/{id} is registered twice');
    expect((await viaInject(app, { path: '/twice/1' })).json()).toBe('first');
    // Another method on the same path is fine.
    app.post('/twice/{id}', { operationId: 'third' }, () => 'third');
    expect((await viaInject(app, { path: '/twice/1', method: 'POST' })).json()).toBe('third');
  });

  it('different parameter names at one position of one method throw', () => {
    const app = new API({ logger: false });
    app.get('/things/{id}', () => 1);
    expect(() => app.get('/things/{thing_id}/parts', () => 2)).toThrow(/\{thing_id\} conflicts with \{id\}/);
    // Other methods have routes of their own.
    app.delete('/things/{thing_id}', () => 2);
  });

  it('a route must start with a slash', () => {
    const app = new API({ logger: false });
    expect(() => app.get('nope', () => 1)).toThrow('Route "nope" must start with "/"');
  });

  it('a segment holds at most one parameter, alone or with fixed text around it', () => {
    const app = new API({ logger: false });
    expect(() => app.get('/files/{name}.txt', () => 1)).not.toThrow();
    expect(() => app.get('/files/{a}{b}.txt', () => 1)).toThrow(/at most one parameter per segment/);
  });

  it('include() refuses anything else', () => {
    const app = new API({ logger: false });
    expect(() => app.include({})).toThrow(TypeError);
    expect(() => app.include(() => 1)).toThrow(TypeError);
  });

  it('@api on a static method is refused', () => {
    expect(() => {
      // biome-ignore lint/complexity/noStaticOnlyClass: the mistake under test is a decorated static method
      class S {
        @api({ route: '/s' })
        static handler() {
          return 1;
        }
      }
      return S;
    }).toThrow(/instance methods/);
  });

  it('a handler that is not a function is refused', () => {
    const app = new API({ logger: false });
    expect(() => (app.get as (route: string, options: object) => API)('/x', {})).toThrow(/handler must be a function/);
  });
});
