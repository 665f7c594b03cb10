/**
 * A route's query keys picked from the query string agree with the parsed query the binder otherwise reads.
 */
import { pickQuery } from '@fnapi/validation';
import { describe, expect, it } from 'vitest';
import { Request } from '../src/http/request.js';
import { seededRandom } from '@fnapi/test-support';

/** What the parsed query (`request.queryValues`) holds for each name. */
function parsed(query: string, names: readonly string[]): (string | string[] | undefined)[] {
  const values = new Request({ method: 'GET', path: '/', query }).queryValues;
  return names.map((name) => values[name]);
}

describe('pickQuery', () => {
  const names = ['page', 'limit', 'a b', '', 'x'];

  it('reads what the parsed query holds', () => {
    for (const query of [
      'page=2&limit=10',
      '',
      'page=2&page=3&page=4',
      'page',
      'page=',
      '=1',
      '&&page=1&&',
      'a b=e',
      'page==2=3',
      'x=1&x&x=',
      'pagex=1&pag=2&limit2=3',
      'limit=1&page=2&limit=3',
    ]) {
      const out: (string | string[] | undefined)[] = [];
      expect(pickQuery(query, names, out), query).toBe(true);
      expect(out, query).toEqual(parsed(query, names));
    }
  });

  it('leaves a query with escapes or spaces to the parsed one', () => {
    expect(pickQuery('page=%32', names, [])).toBe(false);
    expect(pickQuery('other=%zz&page=1', names, [])).toBe(false);
    expect(pickQuery('a+b=c', names, [])).toBe(false);
  });

  it('agrees on random queries', () => {
    const next = seededRandom(11);
    const pieces = ['page', 'limit', 'x', 'a', 'b', '+', '=', '&', '&', ' ', 'é', '1', 'pa'];
    for (let i = 0; i < 5000; i++) {
      let query = '';
      const length = Math.floor(next() * 12);
      for (let j = 0; j < length; j++) query += pieces[Math.floor(next() * pieces.length)];
      const out: (string | string[] | undefined)[] = [];
      if (pickQuery(query, names, out)) expect(out, query).toEqual(parsed(query, names));
      else expect(query.includes('+') || query.includes('%'), query).toBe(true);
    }
  });
});
