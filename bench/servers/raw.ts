// Hand-written node:http server: the baseline. No framework, no validation library — the
// fastest honest code that still routes, validates and serialises exactly like the others: every
// answer, hello's included, is serialised per request, as a framework serialises what a handler returns.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { publicItems } from './catalogue.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const INT = /^-?[0-9]+$/;
// The same pattern zod 4 uses for z.email().
const EMAIL = /^(?!\.)(?!.*\.\.)([A-Za-z0-9_'+\-.]*)[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/;
const ROLES = new Set(['admin', 'user', 'guest']);
const BODY_LIMIT = 1024 * 1024;

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function fail(res: ServerResponse, status: number, detail: string): void {
  send(res, status, JSON.stringify({ status, detail }));
}

function toInt(raw: string | undefined): number | undefined {
  if (raw === undefined || !INT.test(raw)) return undefined;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : undefined;
}

function decode(s: string): string | undefined {
  if (s.indexOf('%') === -1 && s.indexOf('+') === -1) return s;
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/** GET /users/{id}/posts/{postId}?page&limit */
function userPosts(res: ServerResponse, path: string, query: string): void {
  // path is "/users/<id>/posts/<postId>"
  const parts = path.split('/');
  if (parts.length !== 5 || parts[3] !== 'posts') {
    fail(res, 404, 'Not Found');
    return;
  }
  const id = toInt(decode(parts[2]!));
  const postId = toInt(decode(parts[4]!));
  if (id === undefined || postId === undefined) {
    fail(res, 400, 'invalid path parameter');
    return;
  }
  let page = 1;
  let limit = 20;
  if (query.length > 0) {
    for (const pair of query.split('&')) {
      const eq = pair.indexOf('=');
      const key = decode(eq === -1 ? pair : pair.slice(0, eq));
      if (key !== 'page' && key !== 'limit') continue;
      const value = toInt(eq === -1 ? '' : decode(pair.slice(eq + 1)));
      if (value === undefined) {
        fail(res, 400, `invalid query parameter ${key}`);
        return;
      }
      if (key === 'page') page = value;
      else limit = value;
    }
  }
  send(res, 200, JSON.stringify({ id, postId, page, limit }));
}

interface User {
  name: string;
  email: string;
  age: number;
  role: string;
  tags: string[];
}

function validateUser(input: unknown): User | string {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return 'body must be an object';
  const b = input as Record<string, unknown>;
  const { name, email, age } = b;
  if (typeof name !== 'string' || name.length < 2 || name.length > 50) return 'name';
  if (typeof email !== 'string' || !EMAIL.test(email)) return 'email';
  if (typeof age !== 'number' || !Number.isSafeInteger(age) || age < 18 || age > 120) return 'age';
  let role = 'user';
  if (b.role !== undefined) {
    if (typeof b.role !== 'string' || !ROLES.has(b.role)) return 'role';
    role = b.role;
  }
  let tags: string[] = [];
  if (b.tags !== undefined) {
    if (!Array.isArray(b.tags)) return 'tags';
    for (const t of b.tags) if (typeof t !== 'string') return 'tags';
    tags = b.tags as string[];
  }
  return { name, email, age, role, tags };
}

function createUser(req: IncomingMessage, res: ServerResponse): void {
  const type = req.headers['content-type'];
  if (type === undefined || !type.startsWith('application/json')) {
    req.resume();
    fail(res, 415, 'expected application/json');
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > BODY_LIMIT) {
      fail(res, 413, 'body too large');
      req.destroy();
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    let parsed: unknown;
    try {
      const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
      parsed = JSON.parse(text);
    } catch {
      fail(res, 400, 'malformed JSON');
      return;
    }
    const user = validateUser(parsed);
    if (typeof user === 'string') {
      fail(res, 422, `invalid ${user}`);
      return;
    }
    send(res, 201, JSON.stringify(user));
  });
}

const server = createServer((req, res) => {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const query = q === -1 ? '' : url.slice(q + 1);
  const method = req.method;
  if (method === 'GET') {
    // Serialised per request, as a framework does with what a handler returns (not a string built once).
    if (path === '/hello') return send(res, 200, JSON.stringify({ message: 'hello' }));
    if (path === '/items') return send(res, 200, JSON.stringify(publicItems()));
    if (path.startsWith('/users/')) return userPosts(res, path, query);
  } else if (method === 'POST' && path === '/users') {
    return createUser(req, res);
  }
  fail(res, 404, 'Not Found');
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
