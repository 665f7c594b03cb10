// Express 5 with express.json() and zod 4 (safeParse in the handler), default settings.
import express from 'express';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { publicItems } from './catalogue.js';
import { User } from './user-model.js';

const app = express();
app.use(express.json());

app.get('/hello', (_req, res) => {
  res.json({ message: 'hello' });
});

const PostsParams = z.object({ id: z.coerce.number().int(), postId: z.coerce.number().int() });
const PostsQuery = z.object({
  page: z.coerce.number().int().default(1),
  limit: z.coerce.number().int().default(20),
});

app.get('/users/:id/posts/:postId', (req, res) => {
  const params = PostsParams.safeParse(req.params);
  if (!params.success) return void res.status(400).json({ errors: params.error.issues });
  const query = PostsQuery.safeParse(req.query);
  if (!query.success) return void res.status(400).json({ errors: query.error.issues });
  const { id, postId } = params.data;
  const { page, limit } = query.data;
  res.json({ id, postId, page, limit });
});

app.post('/users', (req, res) => {
  const user = User.safeParse(req.body);
  if (!user.success) return void res.status(422).json({ errors: user.error.issues });
  res.status(201).json(user.data);
});

app.get('/items', (_req, res) => {
  res.json(publicItems());
});

const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
