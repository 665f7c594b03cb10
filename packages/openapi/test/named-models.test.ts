import { validate } from '@hyperjump/json-schema/openapi-3-1';
import { describe, expect, it } from 'vitest';
import { z } from '@fnapi/validation';
import { buildDocument, type OperationDescription } from '../src/index.js';
import { http } from './fixtures.js';

// A named model (`.meta({ id })`) used bare in some places and through `.nullable()`, `.optional()`
// or `.default()` in others: the component is the model itself, and each use says what it adds.

type Doc = Record<string, any>;

async function validity(document: Doc) {
  const output = await validate('https://spec.openapis.org/oas/3.1/schema-base', JSON.parse(JSON.stringify(document)), 'BASIC');
  return output.valid ? [] : output.errors;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const orNull = (name: string) => ({ anyOf: [ref(name), { type: 'null' }] });
const OBJECT = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };

const get = (path: string, schema: z.ZodType): OperationDescription => ({
  method: 'GET',
  path,
  operationId: `get${path.replace(/\W/g, '_')}`,
  plan: { method: 'GET', pathParams: [] },
  statusCode: 200,
  responses: [{ status: 200, description: 'OK', content: { mediaType: 'application/json', schema } }],
});
const post = (path: string, params: Record<string, z.ZodType>, answer?: z.ZodType): OperationDescription => ({
  method: 'POST',
  path,
  operationId: `post${path.replace(/\W/g, '_')}`,
  plan: { method: 'POST', pathParams: [], params },
  statusCode: answer ? 200 : 204,
  responses: [
    answer
      ? { status: 200, description: 'OK', content: { mediaType: 'application/json', schema: answer } }
      : { status: 204, description: 'No Content' },
  ],
});

const bodySchema = (doc: Doc, path: string) => doc.paths[path].post.requestBody.content['application/json'].schema;
const answerSchema = (doc: Doc, path: string, method = 'get') =>
  doc.paths[path][method].responses['200'].content['application/json'].schema;

describe('a named model used through .nullable()', () => {
  // Both orders: the generator meets the nullable use first, or the plain one.
  for (const nullableFirst of [true, false]) {
    it(`keeps the component non-nullable and writes the nullable uses as anyOf with null (${nullableFirst ? 'nullable' : 'plain'} use first)`, async () => {
      const Ref = z.object({ id: z.string() }).meta({ id: 'Ref' });
      const plain = [get('/plain', Ref), get('/plain-field', z.object({ ref: Ref })), post('/plain-body', { ref: Ref, note: z.string() })];
      const nullable = [
        get('/nullable', Ref.nullable()),
        get('/nullable-field', z.object({ ref: Ref.nullable() })),
        post('/nullable-body', { ref: Ref.nullable(), note: z.string() }),
      ];
      const doc = buildDocument({ title: 'Refs', version: '1' }, nullableFirst ? [...nullable, ...plain] : [...plain, ...nullable], {
        http,
      }) as Doc;

      expect(doc.components.schemas.Ref).toEqual(OBJECT);
      expect(answerSchema(doc, '/plain')).toEqual(ref('Ref'));
      expect(answerSchema(doc, '/plain-field').properties.ref).toEqual(ref('Ref'));
      expect(bodySchema(doc, '/plain-body').properties.ref).toEqual(ref('Ref'));
      expect(answerSchema(doc, '/nullable')).toEqual(orNull('Ref'));
      expect(answerSchema(doc, '/nullable-field').properties.ref).toEqual(orNull('Ref'));
      expect(answerSchema(doc, '/nullable-field').required).toEqual(['ref']);
      expect(bodySchema(doc, '/nullable-body').properties.ref).toEqual(orNull('Ref'));
      expect(await validity(doc)).toEqual([]);
    });
  }

  it('keeps the input copy of an answered model non-nullable, for a nullable whole body', async () => {
    const Ref = z.object({ id: z.string() }).meta({ id: 'Ref' });
    const doc = buildDocument(
      { title: 'Refs', version: '1' },
      [post('/echo', { ref: Ref.nullable() }, Ref.nullable()), post('/plain', { ref: Ref }, Ref)],
      { http },
    ) as Doc;
    expect(doc.components.schemas).toEqual({ Ref: OBJECT, RefInput: OBJECT });
    expect(bodySchema(doc, '/echo')).toEqual(orNull('RefInput'));
    expect(answerSchema(doc, '/echo', 'post')).toEqual(orNull('Ref'));
    expect(bodySchema(doc, '/plain')).toEqual(ref('RefInput'));
    expect(answerSchema(doc, '/plain', 'post')).toEqual(ref('Ref'));
    expect(await validity(doc)).toEqual([]);
  });

  it('names an input copy when only the nullable use is answered', async () => {
    const Ref = z.object({ id: z.string() }).meta({ id: 'Ref' });
    const doc = buildDocument({ title: 'Refs', version: '1' }, [post('/save', { ref: Ref }), get('/find', Ref.nullable())], {
      http,
    }) as Doc;
    expect(doc.components.schemas).toEqual({ Ref: OBJECT, RefInput: OBJECT });
    expect(bodySchema(doc, '/save')).toEqual(ref('RefInput'));
    expect(answerSchema(doc, '/find')).toEqual(orNull('Ref'));
    expect(await validity(doc)).toEqual([]);
  });

  it('refers a recursive model to itself through .nullable() without making it nullable', async () => {
    const Node = z
      .object({
        name: z.string(),
        get next() {
          return Node.nullable();
        },
      })
      .meta({ id: 'Node' });
    const doc = buildDocument({ title: 'Refs', version: '1' }, [get('/node', Node.nullable()), get('/first', Node)], { http }) as Doc;
    expect(doc.components.schemas).toEqual({
      Node: { type: 'object', properties: { name: { type: 'string' }, next: orNull('Node') }, required: ['name', 'next'] },
    });
    expect(answerSchema(doc, '/node')).toEqual(orNull('Node'));
    expect(answerSchema(doc, '/first')).toEqual(ref('Node'));
    expect(await validity(doc)).toEqual([]);
  });

  it('leaves a model whose own definition is nullable as it is', async () => {
    const Maybe = z.object({ id: z.string() }).nullable().meta({ id: 'Maybe' });
    const doc = buildDocument({ title: 'Refs', version: '1' }, [get('/maybe', Maybe), get('/maybes', z.array(Maybe.optional()))], {
      http,
    }) as Doc;
    expect(doc.components.schemas.Maybe.type).toEqual(['object', 'null']);
    expect(answerSchema(doc, '/maybe')).toEqual(ref('Maybe'));
    expect(answerSchema(doc, '/maybes').items).toEqual(ref('Maybe'));
    expect(await validity(doc)).toEqual([]);
  });
});

describe('a named model used through .optional() and .default()', () => {
  for (const wrappedFirst of [true, false]) {
    it(`keeps the component free of the wrappers (${wrappedFirst ? 'wrapped' : 'plain'} use first)`, async () => {
      const Ref = z.object({ id: z.string() }).meta({ id: 'Ref' });
      const wrapped = [
        post('/defaulted', { ref: Ref.default({ id: 'none' }), note: z.string() }),
        post('/optional', { ref: Ref.optional(), note: z.string() }),
        get('/described', z.object({ ref: Ref.optional().meta({ description: 'The reference, when there is one' }) })),
        get('/defaulted-answer', z.object({ ref: Ref.nullable().default(null) })),
      ];
      const plain = [get('/plain', Ref), post('/plain-body', { ref: Ref, note: z.string() })];
      const doc = buildDocument({ title: 'Refs', version: '1' }, wrappedFirst ? [...wrapped, ...plain] : [...plain, ...wrapped], {
        http,
      }) as Doc;

      expect(doc.components.schemas).toEqual({ Ref: OBJECT });
      expect(bodySchema(doc, '/optional')).toMatchObject({ properties: { ref: ref('Ref') }, required: ['note'] });
      expect(bodySchema(doc, '/defaulted').properties.ref).toEqual({ ...ref('Ref'), default: { id: 'none' } });
      expect(bodySchema(doc, '/defaulted').required).toEqual(['note']);
      expect(answerSchema(doc, '/described').properties.ref).toEqual({ ...ref('Ref'), description: 'The reference, when there is one' });
      // A defaulted field always comes out, so the answer requires it.
      expect(answerSchema(doc, '/defaulted-answer').properties.ref).toEqual({ ...orNull('Ref'), default: null });
      expect(answerSchema(doc, '/defaulted-answer').required).toEqual(['ref']);
      expect(answerSchema(doc, '/plain')).toEqual(ref('Ref'));
      expect(bodySchema(doc, '/plain-body').properties.ref).toEqual(ref('Ref'));
      expect(await validity(doc)).toEqual([]);
    });
  }
});
