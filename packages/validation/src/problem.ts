import { z } from 'zod';
import type { ValidationIssue } from './issues.js';

/**
 * `status` fixed to one number. The metadata makes the document say `const` (what a typed client
 * narrows on) where a literal alone would become a one-value `enum`.
 */
function statusConst(status: number) {
  return z.literal(status).meta({ type: 'integer', const: status, description: 'The HTTP status code' });
}

function buildValidationProblemSchema() {
  return z.object({
    type: z.literal('about:blank'),
    title: z.literal('Unprocessable Content'),
    status: statusConst(422),
    detail: z.string(),
    errors: z.array(
      z.object({
        in: z.enum(['path', 'query', 'header', 'cookie', 'body']),
        path: z.array(z.union([z.string(), z.number()])),
        message: z.string(),
        code: z.string(),
      }),
    ),
    truncated: z
      .boolean()
      .optional()
      .describe('Present (true) when more issues were found than `errors` lists: validation stopped at the first 100'),
  });
}

function buildProblemDetailsSchema() {
  return z
    .object({
      type: z.string().describe('A URI reference identifying the problem type; `about:blank` when it is just the status'),
      title: z.string().describe('Short summary of the problem type: the status reason phrase'),
      status: z.int().min(100).max(599).describe('The HTTP status code'),
      detail: z.string().optional().describe('Explanation specific to this occurrence'),
      details: z.unknown().optional().describe('Structured data about this occurrence'),
    })
    .describe('RFC 9457 problem details');
}

// Both schemas are built when first asked for, not when the package loads: only documents use them,
// and building zod schemas is a good part of what loading costs (a Lambda's cold start). The
// constants below are the same objects, kept out of a bundle that does not use them (pure calls).
let validationProblemSchemaValue: ReturnType<typeof buildValidationProblemSchema> | undefined;
let problemDetailsSchemaValue: ReturnType<typeof buildProblemDetailsSchema> | undefined;

/** `ValidationProblemSchema`, built on the first call. */
export function validationProblemSchema(): ReturnType<typeof buildValidationProblemSchema> {
  return (validationProblemSchemaValue ??= buildValidationProblemSchema());
}

/** `ProblemDetailsSchema`, built on the first call. */
export function problemDetailsSchema(): ReturnType<typeof buildProblemDetailsSchema> {
  return (problemDetailsSchemaValue ??= buildProblemDetailsSchema());
}

/** Zod schema of the 422 body: RFC 9457 problem details with one entry per validation issue. */
export const ValidationProblemSchema = /* @__PURE__ */ validationProblemSchema();

/** The problem-details body every error other than the 422 carries (RFC 9457). */
export const ProblemDetailsSchema = /* @__PURE__ */ problemDetailsSchema();

const problemByStatus = new Map<number, z.ZodType>();

/**
 * The problem body of one status, with `status` fixed to that number, so a typed client narrows on
 * it. One schema per status for the life of the process (documents refer to it by identity).
 */
export function problemSchemaFor(status: number): z.ZodType {
  let schema = problemByStatus.get(status);
  if (schema === undefined) {
    schema = problemDetailsSchema()
      .extend({ status: statusConst(status) })
      .describe(`RFC 9457 problem details of a ${status} answer`);
    problemByStatus.set(status, schema);
  }
  return schema;
}

export interface ValidationProblem {
  type: 'about:blank';
  title: 'Unprocessable Content';
  status: 422;
  detail: 'Request validation failed';
  errors: ValidationIssue[];
  /** True when validation stopped at the first 100 issues and more exist. */
  truncated?: true;
}

/** Builds the 422 problem details body for the given issues (`truncated`: more were found than listed). */
export function validationProblem(issues: ValidationIssue[], truncated = false): ValidationProblem {
  const problem: ValidationProblem = {
    type: 'about:blank',
    title: 'Unprocessable Content',
    status: 422,
    detail: 'Request validation failed',
    errors: issues,
  };
  if (truncated) problem.truncated = true;
  return problem;
}
