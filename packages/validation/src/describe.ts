import { z } from 'zod';
import { isOptional } from './convert.js';
import { analyze, type BinderPlan } from './plan.js';
import type { Schema } from './standard.js';
import { compileForm } from './uploads.js';

export interface ParamDescriptor {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  /** The name on the wire: the header name (lower-case, hyphenated), query key, cookie name or path segment. */
  wireName: string;
  schema: Schema;
  required: boolean;
  /** Marked deprecated (the wrapper's `deprecated` option, or the schema's `.meta({ deprecated: true })`). */
  deprecated?: boolean;
  /** A field of a model that refuses unknown keys of its location (`z.strictObject`): any other key is answered 422. */
  strict?: boolean;
}

export type BodyDescriptor =
  | { kind: 'none' }
  | {
      kind: 'fields';
      /** The fields as one zod object (every field a zod schema), for documents built with zod. */
      schema: z.ZodObject;
      /** The fields by name, whatever their library. */
      fields: Record<string, Schema>;
      mediaTypes?: readonly string[];
    }
  | { kind: 'whole'; name: string; schema: Schema; mediaTypes?: readonly string[] };

/**
 * Refuses binding rules no request could satisfy (what `describeParams` and the binder would throw),
 * without describing them: registration's check, so that describing waits for a document.
 */
export function checkParams(plan: BinderPlan): void {
  analyze(plan);
  compileForm(plan.method, plan.params, plan.pathParams);
}

/** The binding rules, described for documentation (OpenAPI): parameters by location and the request body. */
export function describeParams(plan: BinderPlan): { params: ParamDescriptor[]; body: BodyDescriptor } {
  const params: ParamDescriptor[] = [];
  const bodyFields: Record<string, Schema> = {};
  let body: BodyDescriptor = { kind: 'none' };
  for (const e of analyze(plan)) {
    switch (e.kind) {
      case 'scalar':
        if (e.options?.includeInSchema === false) break;
        params.push({
          name: e.name,
          in: e.in,
          wireName: e.wire,
          schema: e.schema,
          required: e.in === 'path' || !isOptional(e.schema),
          ...(e.options?.deprecated ? { deprecated: true } : {}),
        });
        break;
      case 'queryModel':
        if (e.options?.includeInSchema === false) break;
        for (const f of e.fields) {
          params.push({
            name: f.name,
            in: e.in,
            wireName: f.wire,
            schema: f.schema,
            required: !e.optional && !isOptional(f.schema),
            ...(e.options?.deprecated ? { deprecated: true } : {}),
            ...(e.strict ? { strict: true } : {}),
          });
        }
        break;
      case 'bodyField':
        bodyFields[e.name] = e.schema;
        break;
      case 'wholeBody':
        body = { kind: 'whole', name: e.name, schema: e.schema };
        break;
    }
  }
  if (Object.keys(bodyFields).length > 0)
    body = { kind: 'fields', schema: z.object(bodyFields as Record<string, z.ZodType>), fields: bodyFields };
  // Forms and uploads are described with their own media types rather than JSON.
  const form = compileForm(plan.method, plan.params, plan.pathParams);
  if (form !== undefined && body.kind !== 'none') body = { ...body, mediaTypes: form.mediaTypes };
  return { params, body };
}
