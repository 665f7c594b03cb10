import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { createToken } from '../src/index.js';

const secret = 'create-token-secret-with-enough-bytes!';

describe('createToken expiry', () => {
  it('expires in 15 minutes when expiresIn is not given', async () => {
    const before = Math.floor(Date.now() / 1000);
    const claims = decodeJwt(await createToken({ sub: 'ada' }, { secret, algorithm: 'HS256' }));
    const after = Math.floor(Date.now() / 1000);
    expect(claims.exp).toBeGreaterThanOrEqual(before + 900);
    expect(claims.exp).toBeLessThanOrEqual(after + 900);
    expect(claims.exp! - claims.iat!).toBe(900);
  });

  it('an explicit undefined is the default too', async () => {
    const claims = decodeJwt(await createToken({ sub: 'ada' }, { secret, algorithm: 'HS256', expiresIn: undefined }));
    expect(claims.exp! - claims.iat!).toBe(900);
  });

  it('expiresIn: null signs a token without exp', async () => {
    const claims = decodeJwt(await createToken({ sub: 'ada' }, { secret, algorithm: 'HS256', expiresIn: null }));
    expect(claims.exp).toBeUndefined();
    expect(claims.iat).toBeTypeOf('number');
  });

  it('numbers are seconds and spans are parsed', async () => {
    const a = decodeJwt(await createToken({}, { secret, algorithm: 'HS256', expiresIn: 60 }));
    expect(a.exp! - a.iat!).toBe(60);
    const b = decodeJwt(await createToken({}, { secret, algorithm: 'HS256', expiresIn: '2h' }));
    expect(b.exp! - b.iat!).toBe(7200);
  });

  it("takes any length, with fnapi's units, and refuses what is no duration", async () => {
    const year = decodeJwt(await createToken({}, { secret, algorithm: 'HS256', expiresIn: 86_400 * 365 }));
    expect(year.exp! - year.iat!).toBe(86_400 * 365);
    const month = decodeJwt(await createToken({}, { secret, algorithm: 'HS256', expiresIn: '30d' }));
    expect(month.exp! - month.iat!).toBe(30 * 86_400);
    await expect(createToken({}, { secret, algorithm: 'HS256', expiresIn: '2 hours' as never })).rejects.toThrow(
      /^expiresIn is a number of seconds or a string with a unit/,
    );
  });
});
