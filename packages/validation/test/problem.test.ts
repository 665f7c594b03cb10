import { describe, expect, it } from 'vitest';
import {
  compileBinder,
  ProblemDetailsSchema,
  problemDetailsSchema,
  problemSchemaFor,
  validationProblem,
  ValidationProblemSchema,
  validationProblemSchema,
  z,
} from '../src/index.js';

describe('validationProblem', () => {
  it('builds the RFC 9457 body for 422', () => {
    const issues = [{ in: 'body' as const, path: ['age'], message: 'Too small: expected number to be >=18', code: 'too_small' }];
    expect(validationProblem(issues)).toEqual({
      type: 'about:blank',
      title: 'Unprocessable Content',
      status: 422,
      detail: 'Request validation failed',
      errors: issues,
    });
  });

  it('its output satisfies ValidationProblemSchema', () => {
    const bind = compileBinder({ method: 'POST', pathParams: ['id'], params: { id: z.int(), a: z.array(z.int()) } });
    const result = bind({
      path: { id: 'x' },
      query: {},
      headers: { get: () => null },
      cookies: () => ({}),
      body: { a: [1, 'b'] },
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const problem = validationProblem(result.issues);
    expect(ValidationProblemSchema.safeParse(problem).success).toBe(true);
    expect(problem.errors).toEqual([
      { in: 'path', path: ['id'], code: 'invalid_type', message: expect.any(String) },
      { in: 'body', path: ['a', 1], code: 'invalid_type', message: expect.any(String) },
    ]);
  });

  it('the schema rejects bodies that do not have the shape', () => {
    expect(ValidationProblemSchema.safeParse({ type: 'about:blank', status: 400 }).success).toBe(false);
    expect(
      ValidationProblemSchema.safeParse({
        ...validationProblem([]),
        errors: [{ in: 'somewhere', path: [], message: 'x', code: 'y' }],
      }).success,
    ).toBe(false);
  });
});

describe('the problem schemas built on first use', () => {
  it('are the exported constants, one object each', () => {
    expect(validationProblemSchema()).toBe(ValidationProblemSchema);
    expect(validationProblemSchema()).toBe(validationProblemSchema());
    expect(problemDetailsSchema()).toBe(ProblemDetailsSchema);
  });

  it('a status schema extends the problem details with that status', () => {
    const schema = problemSchemaFor(404);
    expect(schema.safeParse({ type: 'about:blank', title: 'Not Found', status: 404 }).success).toBe(true);
    expect(schema.safeParse({ type: 'about:blank', title: 'Not Found', status: 400 }).success).toBe(false);
    expect(problemSchemaFor(404)).toBe(schema);
  });
});
