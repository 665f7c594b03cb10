// The list endpoint's data: 50 items as a store would return them, each with an internal field
// (\`cost\`) that the response model must drop. Built once; every server answers with the same list.
import { z } from 'zod';

export interface StoredItem {
  id: number;
  name: string;
  price: number;
  tags: string[];
  inStock: boolean;
  cost: number;
}

export const ITEMS: StoredItem[] = Array.from({ length: 50 }, (_, i) => ({
  id: i + 1,
  name: `Item ${i + 1}`,
  price: Math.round((i + 1) * 1.25 * 100) / 100,
  tags: i % 2 === 0 ? ['even', 'sale'] : ['odd'],
  inStock: i % 3 !== 0,
  cost: i * 0.5,
}));

/** What the endpoint answers: the items without their internal field. */
export const Item = z.object({ id: z.int(), name: z.string(), price: z.number(), tags: z.array(z.string()), inStock: z.boolean() });

/** The same shape as a JSON schema (Fastify's response schema, fast-json-stringify). */
export const ITEM_JSON_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    price: { type: 'number' },
    tags: { type: 'array', items: { type: 'string' } },
    inStock: { type: 'boolean' },
  },
  required: ['id', 'name', 'price', 'tags', 'inStock'],
} as const;

/** For servers without a response model: the public fields, picked by hand. */
export function publicItems(): Omit<StoredItem, 'cost'>[] {
  return ITEMS.map(({ id, name, price, tags, inStock }) => ({ id, name, price, tags, inStock }));
}
