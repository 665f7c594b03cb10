/**
 * The AsyncAPI 3.0 document of WebSocket endpoints, validated by `@asyncapi/parser`: a guarded channel
 * carries its guard's security scheme on the operations (and in `components.securitySchemes`); channel
 * parameters are valid 3.0 parameters (`description`, `enum`, `default`, `examples`, the full schema as
 * `x-schema`, never `schema`); query parameters are the `ws` binding's `query`; payloads are named
 * components (no anonymous schemas for a generator to number); a `receive` payload is as closed as a
 * `send` one; `servers` come from the API's `servers`, else the request's origin; subprotocols are
 * `x-protocols`. Reproducer: a guarded channel had no security, `board_id: {}` and no `servers`.
 */
import { Parser } from '@asyncapi/parser';
import { apiKeyRequired, jwtRequired } from '@fnapi/auth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, z } from '../src/index.js';
import { TestClient } from '../src/server/testing.js';

type Json = Record<string, any>;
const secret = 'a-test-secret-long-enough-for-hs256-signing';

const Card = z.object({ id: z.int(), title: z.string().min(1), done: z.boolean().default(false) }).meta({ id: 'Card' });
const Move = z.object({ card: z.int(), to: z.enum(['todo', 'doing', 'done']) }).meta({ id: 'Move' });

function build(servers?: { url: string; description?: string }[]): API {
  const app = new API({ title: 'Boards', version: '2.0.0', logger: false, ...(servers ? { servers } : {}) });
  app.ws(
    '/boards/{board_id}/{view}',
    {
      params: {
        board_id: z
          .int()
          .min(1)
          .describe('The board')
          .meta({ examples: [7, 12] }),
        view: z.enum(['list', 'grid']).default('list'),
        since: z.string().optional(),
        limit: z.int().max(100),
      },
      receive: Move,
      send: Card,
      protocols: ['board.v2', 'board.v1'],
      summary: 'A live board',
    },
    jwtRequired({ secret, algorithm: 'HS256' })(async function board() {}),
  );
  app.ws('/echo', { receive: z.object({ text: z.string() }), send: z.object({ text: z.string() }) }, async function echo() {});
  app.ws(
    '/keyed',
    { send: Card },
    apiKeyRequired({ apiKeys: { k: [] } })(async function keyed() {}),
  );
  app.ws('/raw', {}, async function raw() {});
  return app;
}

async function parse(body: string) {
  const parsed = await new Parser().parse(body);
  return { parsed, errors: parsed.diagnostics.filter((d) => d.severity === 0) };
}

describe('the AsyncAPI document', () => {
  let client: TestClient;
  let body: string;
  let doc: Json;
  beforeAll(async () => {
    client = await TestClient.start(build());
    body = (await client.get('/asyncapi.json')).body;
    doc = JSON.parse(body) as Json;
  });
  afterAll(() => client.close());

  it('is valid AsyncAPI 3.0 for @asyncapi/parser', async () => {
    const { parsed, errors } = await parse(body);
    expect(errors).toEqual([]);
    expect(parsed.document).toBeDefined();
  });

  it('puts a guard’s security scheme on the operations it guards, and in components.securitySchemes', async () => {
    const ops = doc.operations as Record<string, Json>;
    expect(ops.board_receive!.security).toEqual([{ $ref: '#/components/securitySchemes/bearerAuth' }]);
    expect(ops.board_send!.security).toEqual([{ $ref: '#/components/securitySchemes/bearerAuth' }]);
    expect(ops.keyed_send!.security).toEqual([{ $ref: '#/components/securitySchemes/apiKeyHeader' }]);
    expect(ops.echo_receive!.security).toBeUndefined();
    expect(doc.components.securitySchemes).toEqual({
      bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      apiKeyHeader: { type: 'httpApiKey', in: 'header', name: 'X-API-Key' },
    });
    const { parsed } = await parse(body);
    const board = parsed
      .document!.operations()
      .all()
      .find((o) => o.id() === 'board_receive')!;
    expect(board.security().map((alternative) => alternative.map((r) => r.scheme().type()))).toEqual([['http']]);
  });

  it('describes path parameters as AsyncAPI 3.0 parameters: no schema key, the schema as x-schema', () => {
    const channel = doc.channels.board as Json;
    expect(channel.address).toBe('/boards/{board_id}/{view}');
    expect(channel.parameters.board_id).toEqual({
      description: 'The board',
      examples: ['7', '12'],
      'x-schema': { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'The board', examples: [7, 12] },
    });
    expect(channel.parameters.view).toEqual({
      enum: ['list', 'grid'],
      default: 'list',
      'x-schema': { type: 'string', enum: ['list', 'grid'], default: 'list' },
    });
    for (const parameter of Object.values(channel.parameters as Record<string, Json>)) expect(parameter).not.toHaveProperty('schema');
  });

  it('describes query parameters as the ws binding’s query schema', () => {
    expect(doc.channels.board.bindings).toEqual({
      ws: {
        bindingVersion: '0.1.0',
        query: {
          type: 'object',
          properties: { since: { type: 'string' }, limit: { type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: 100 } },
          required: ['limit'],
        },
      },
    });
  });

  it('names every payload as a component: a model by its id, others after their operation', async () => {
    const messages = doc.components.messages as Record<string, Json>;
    expect(messages['board.receive']!.payload).toEqual({ $ref: '#/components/schemas/Move' });
    expect(messages['board.send']!.payload).toEqual({ $ref: '#/components/schemas/Card' });
    expect(messages['echo.receive']!.payload).toEqual({ $ref: '#/components/schemas/EchoReceived' });
    expect(messages['echo.send']!.payload).toEqual({ $ref: '#/components/schemas/EchoSent' });
    expect(doc.channels.board.messages).toEqual({
      receive: { $ref: '#/components/messages/board.receive' },
      send: { $ref: '#/components/messages/board.send' },
    });
    // What a generator names its types after: the schema ids the parser gives the payloads.
    const { parsed } = await parse(body);
    const ids = parsed
      .document!.allMessages()
      .all()
      .map((m) => m.payload()!.id());
    expect(ids.filter((id) => /anonymous/i.test(id))).toEqual([]);
    expect(ids).toEqual(expect.arrayContaining(['Move', 'Card', 'EchoReceived', 'EchoSent', 'RawReceived']));
  });

  it('closes a receive payload as the send payload is closed', () => {
    const schemas = doc.components.schemas as Record<string, Json>;
    expect(schemas.Move).toMatchObject({ type: 'object', additionalProperties: false, required: ['card', 'to'] });
    expect(schemas.Card).toMatchObject({ type: 'object', additionalProperties: false, required: ['id', 'title', 'done'] });
    expect(schemas.EchoReceived).toEqual(schemas.EchoSent);
    expect(schemas.EchoReceived).toMatchObject({ additionalProperties: false });
  });

  it('lists the subprotocols as x-protocols', () => {
    expect(doc.channels.board['x-protocols']).toEqual(['board.v2', 'board.v1']);
    expect(doc.channels.echo).not.toHaveProperty('x-protocols');
  });

  it('has servers from the request’s origin when the API names none', () => {
    const { host } = new URL(client.url);
    expect(doc.servers).toEqual({ default: { host, protocol: 'ws' } });
  });
});

describe('the AsyncAPI document’s servers', () => {
  it('come from the API’s servers: wss for https, the path as pathname, a relative one on the request’s origin', async () => {
    const app = build([
      { url: 'https://api.example.com/v2/', description: 'Production' },
      { url: 'http://localhost:8000' },
      { url: '/edge' },
    ]);
    const client = await TestClient.start(app);
    try {
      const res = await client.get('/asyncapi.json');
      const doc = res.json<Json>();
      expect(doc.servers).toEqual({
        server1: { host: 'api.example.com', pathname: '/v2', protocol: 'wss', description: 'Production' },
        server2: { host: 'localhost:8000', protocol: 'ws' },
        server3: { host: new URL(client.url).host, pathname: '/edge', protocol: 'ws' },
      });
      expect((await parse(res.body)).errors).toEqual([]);
    } finally {
      await client.close();
    }
    // Asked for outside a request: the absolute ones only.
    expect(Object.keys(app.asyncapi().servers as Json)).toEqual(['server1', 'server2']);
  });
});
