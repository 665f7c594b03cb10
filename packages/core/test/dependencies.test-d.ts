// Types of dependencies: the handler's input holds the params' types and each used value's type (a
// generator's yielded type, a promise's resolved type); a misspelt name, a name that is also a
// parameter and an override of the wrong type do not compile.
import { describe, expectTypeOf, it } from 'vitest';
import { API, type AuthInfo, type Dependency, dependency, header, type Request, z } from '../src/index.js';
import { TestClient } from '../src/server/testing.js';

interface Pool {
  query(sql: string): Promise<number>;
}
const pool = dependency({ lifetime: 'app' }, async function* (): AsyncGenerator<Pool> {
  yield { query: async () => 1 };
});
const tx = dependency({ lifetime: 'call', uses: { pool } }, function* ({ pool }) {
  expectTypeOf(pool).toEqualTypeOf<Pool>();
  yield { pool, committed: false as boolean };
});
const user = dependency({ params: { authorization: header(z.string().optional()) } }, async ({ authorization }, request) => {
  expectTypeOf(authorization).toEqualTypeOf<string | undefined>();
  expectTypeOf(request).toEqualTypeOf<Request>();
  return { name: authorization ?? 'anonymous', admin: false };
});
const plain = dependency({}, () => 42);

describe('dependency types', () => {
  it('gives each dependency the type of its value', () => {
    expectTypeOf(pool).toEqualTypeOf<Dependency<Pool>>();
    expectTypeOf(tx).toEqualTypeOf<Dependency<{ pool: Pool; committed: boolean }>>();
    expectTypeOf(user).toEqualTypeOf<Dependency<{ name: string; admin: boolean }>>();
    expectTypeOf(plain).toEqualTypeOf<Dependency<number>>();
  });

  it("types the handler's input from params and uses", () => {
    const app = new API();
    app.post('/orders/{id}', { params: { id: z.int(), note: z.string() }, uses: { tx, user, plain } }, ({ id, note, tx, user, plain }) => {
      expectTypeOf(id).toEqualTypeOf<number>();
      expectTypeOf(note).toEqualTypeOf<string>();
      expectTypeOf(tx.pool).toEqualTypeOf<Pool>();
      expectTypeOf(user.name).toEqualTypeOf<string>();
      expectTypeOf(plain).toEqualTypeOf<number>();
      return { ok: true };
    });
    app.api({ route: '/me', uses: { user } }, ({ user }) => user.name);
    app.ws('/live', { uses: { user } }, ({ user }) => {
      expectTypeOf(user.admin).toEqualTypeOf<boolean>();
    });
  });

  it('refuses a misspelt dependency name and a name that is also a parameter', () => {
    const app = new API();
    // @ts-expect-error: no dependency is used as "usr"
    app.get('/a', { uses: { user } }, ({ usr }) => usr);
    // @ts-expect-error: "id" is a path parameter and a dependency
    app.get('/b/{id}', { uses: { id: plain } }, () => 1);
    // @ts-expect-error: "q" is a parameter and a dependency
    app.get('/c', { params: { q: z.string() }, uses: { q: plain } }, () => 1);
    // @ts-expect-error: an 'app' dependency gets no request
    dependency({ lifetime: 'app' }, (_input, request: Request) => request.path);
  });

  it('checks overrides against the type of the dependency they replace', () => {
    const app = new API();
    app.override(plain, () => 7);
    app.override(user, async () => ({ name: 'fake', admin: true }));
    app.override(
      user,
      dependency({}, () => ({ name: 'x', admin: false })),
    );
    // @ts-expect-error: a string where a number is given
    app.override(plain, () => 'seven');
    // @ts-expect-error: the replacement lacks `admin`
    app.override(user, () => ({ name: 'fake' }));
    void TestClient.start(app, { overrides: [[plain, () => 1]] });
    // @ts-expect-error: the replacement's value is not a number
    void TestClient.start(app, { overrides: [[plain, () => 'one']] });
  });

  it('an auth-like AuthInfo value flows through uses', () => {
    const auth = dependency({}, (_input, request) => request.auth as AuthInfo);
    new API().get('/who', { uses: { auth } }, ({ auth }) => auth.subject);
  });
});
