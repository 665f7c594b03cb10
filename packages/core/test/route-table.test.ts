/**
 * Route matching: static segments before parameters, backtracking, decoding, through all transports.
 */
import { describe, expect, it, vi } from 'vitest';
import { API, StreamingResponse, z } from '../src/index.js';
import { joinPath, pathParamNames, RouteTable } from '../src/serve/route-table.js';
import { type Case, JSON_TYPE, problem, runTable, serve } from './helpers.js';

function build(): API {
  const app = new API({ logger: false });
  app.get('/users/me', () => 'me');
  app.get('/users/{id}', ({ id }) => ({ id }));
  app.get('/users/{id}/posts', ({ id }) => ({ posts: id }));
  app.get('/users/me/settings/{key}', ({ key }) => ({ key }));
  app.get('/files/{a}/{b}', ({ a, b }) => [a, b]);
  app.get('/', () => 'root');
  app.get(
    '/stream',
    () =>
      new StreamingResponse(
        (async function* () {
          yield 'never read by HEAD';
        })(),
      ),
  );
  return app;
}

const notFound = (path: string, method = 'GET') => problem(404, 'Not Found', `No endpoint for ${method} ${path}`);

const cases: Case[] = [
  { name: 'the root route', call: { path: '/' }, status: 200, json: 'root' },
  { name: 'a static segment wins over a parameter', call: { path: '/users/me' }, status: 200, json: 'me' },
  { name: 'a parameter matches other values', call: { path: '/users/42' }, status: 200, json: { id: '42' } },
  { name: 'a deeper route through a parameter', call: { path: '/users/me/posts' }, status: 200, json: { posts: 'me' } },
  { name: 'a deeper route through a static segment', call: { path: '/users/me/settings/theme' }, status: 200, json: { key: 'theme' } },
  { name: 'two parameters', call: { path: '/files/x%2Fy/z%3F' }, status: 200, json: ['x/y', 'z?'] },
  { name: 'an empty segment does not match a parameter', call: { path: '/users/' }, status: 404, json: notFound('/users/') },
  { name: 'an empty inner segment does not match', call: { path: '/files//z' }, status: 404, json: notFound('/files//z') },
  { name: 'extra segments do not match', call: { path: '/users/1/posts/2' }, status: 404, json: notFound('/users/1/posts/2') },
  { name: 'matching is case-sensitive', call: { path: '/USERS/me' }, status: 404, json: notFound('/USERS/me') },
  {
    name: 'a malformed percent-escape is 400',
    call: { path: '/users/%E0%A4%A' },
    status: 400,
    json: problem(400, 'Bad Request', 'Malformed percent-escape in the request path'),
  },
  {
    name: 'HEAD of a streaming GET route has no body',
    call: { method: 'HEAD', path: '/stream' },
    status: 200,
    text: '',
    contentType: 'application/octet-stream',
  },
  {
    name: 'the OpenAPI document is served',
    call: { path: '/openapi.json' },
    status: 200,
    contentType: JSON_TYPE,
    check: (r) => expect(r.json().openapi).toMatch(/^3\.1/),
  },
];

describe('route matching', () => {
  const served = serve(build);
  runTable(served, cases);
});

describe('RouteTable', () => {
  it('reports a taken method and template', () => {
    const table = new RouteTable<number>();
    expect(table.add('GET', '/a/{id}', 1)).toBe(true);
    expect(table.add('GET', '/a/{id}', 2)).toBe(false);
    expect(table.add('POST', '/a/{id}', 3)).toBe(true);
    expect(table.add('GET', '/a', 4)).toBe(true);
    expect(table.add('GET', '/a', 5)).toBe(false);
    expect(table.match('GET', '/a/7')).toEqual({ value: 1, params: { id: '7' } });
    expect(table.match('PUT', '/a/7')).toBeUndefined();
    expect(table.hasPath('/a/7')).toBe(true);
    expect(table.hasPath('/b')).toBe(false);
  });

  it('builds path parameters, the deepest first, with or without generated code', () => {
    const check = () => {
      const table = new RouteTable<number>();
      table.add('GET', '/users/{id}/posts/{postId}', 1);
      table.add('GET', '/files/{kind}/{rest:path}', 2);
      table.add('GET', '/odd/{constructor}/{__proto__}', 3);
      const posts = table.match('GET', '/users/4%202/posts/7');
      expect(posts).toEqual({ value: 1, params: { id: '4 2', postId: '7' } });
      expect(Object.keys(posts!.params)).toEqual(['postId', 'id']);
      const file = table.match('GET', '/files/img/a/b%2Fc.png');
      expect(file).toEqual({ value: 2, params: { kind: 'img', rest: 'a/b/c.png' } });
      expect(Object.keys(file!.params)).toEqual(['rest', 'kind']);
      // `__proto__` is not an own key of an ordinary object; the value of `constructor` is.
      const odd = table.match('GET', '/odd/a/b');
      expect(odd?.value).toBe(3);
      expect(Object.getPrototypeOf(odd!.params)).toBe(Object.prototype);
      expect(Object.keys(odd!.params)).toEqual(['constructor']);
      expect(odd!.params.constructor).toBe('a');
    };
    check();
    z.config({ jitless: true });
    const generate = vi.spyOn(globalThis, 'Function');
    try {
      check();
      expect(generate).not.toHaveBeenCalled();
    } finally {
      generate.mockRestore();
      z.config({ jitless: false });
    }
  });

  it('generates the parameter builder of a route on its first match, not when the route is added', () => {
    const generate = vi.spyOn(globalThis, 'Function');
    try {
      const table = new RouteTable<number>();
      for (let i = 0; i < 50; i++) table.add('GET', `/r${i}/{id}/{rest:path}`, i);
      table.add('GET', '/s/{id}', 50);
      expect(generate).not.toHaveBeenCalled();
      expect(table.match('GET', '/r7/a/b/c')).toEqual({ value: 7, params: { id: 'a', rest: 'b/c' } });
      expect(table.match('GET', '/s/x')).toEqual({ value: 50, params: { id: 'x' } });
      expect(generate).toHaveBeenCalledTimes(2);
      // Later matches use the builder made by the first, with their own values.
      expect(table.match('GET', '/r7/d/e')).toEqual({ value: 7, params: { id: 'd', rest: 'e' } });
      expect(table.match('GET', '/s/y')).toEqual({ value: 50, params: { id: 'y' } });
      expect(generate).toHaveBeenCalledTimes(2);
    } finally {
      generate.mockRestore();
    }
  });

  it('finds static paths among many of one length, and long ones', () => {
    const table = new RouteTable<number>();
    const paths = Array.from({ length: 12 }, (_, i) => `/p${String(i).padStart(2, '0')}`);
    for (const [i, path] of paths.entries()) table.add('GET', path, i);
    const long = `/${'x'.repeat(80)}`;
    table.add('GET', long, 100);
    table.add('GET', '/caf\u00e9', 101);
    for (const [i, path] of paths.entries()) expect(table.match('GET', path)?.value).toBe(i);
    expect(table.match('GET', '/p12')).toBeUndefined();
    expect(table.match('GET', long)?.value).toBe(100);
    expect(table.match('GET', `${long}y`)).toBeUndefined();
    expect(table.match('GET', '/caf%C3%A9')?.value).toBe(101);
    expect(table.match('GET', '/abc')).toBeUndefined();
  });

  it('names path parameters and joins prefixes', () => {
    expect(pathParamNames('/users/{user_id}/posts/{post_id}')).toEqual(['user_id', 'post_id']);
    expect(() => pathParamNames('/a/{id}/b/{id}')).toThrow(/repeats/);
    expect(joinPath('/v1/', '/users')).toBe('/v1/users');
    expect(joinPath('/v1', '')).toBe('/v1');
    expect(joinPath('/v1', '/')).toBe('/v1/');
    expect(joinPath('', '/x')).toBe('/x');
    // Without a prefix, as with one: slashes normalised, a trailing one kept only where the route has it.
    const cases: [string, string][] = [
      ['/', '/'],
      ['/x/', '/x/'],
      ['/x//y', '/x/y'],
      ['//x', '/x'],
      ['x', '/x'],
      ['', '/'],
      ['/x/{id}/{rest:path}', '/x/{id}/{rest:path}'],
    ];
    for (const [route, joined] of cases) {
      expect(joinPath('', route)).toBe(joined);
      expect(joinPath('/v1', route)).toBe(route === '' ? '/v1' : `/v1${joined}`);
    }
  });
});
