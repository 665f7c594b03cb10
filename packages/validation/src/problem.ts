import { z } from 'zod';
import type { ValidationIssue } from './issues.js';

/** The problem-details body every non-422 error carries (RFC 9457). */
export const ProblemDetailsSchema = z
  .object({
    type: z.string().describe('A URI reference identifying the problem type; `about:blank` when it is just the status'),
    title: z.string().describe('Short summary of the problem type: the status reason phrase'),
    status: z.int().min(100).max(599).describe('The HTTP status code'),
    detail: z.string().optional().describe('Explanation specific to this occurrence'),
    details: z.unknown().optional().describe('Structured data about this occurrence'),
  })
  .describe('RFC 9457 problem details');

/** Zod schema of the 422 body: RFC 9457 problem details with one entry per validation issue. */
export const ValidationProblemSchema = z.object({
  type: z.literal('about:blank'),
  title: z.literal('Unprocessable Content'),
  status: z.literal(422),
  detail: z.string(),
  errors: z.array(
    z.object({
      in: z.enum(['path', 'query', 'header', 'cookie', 'body']),
      path: z.array(z.union([z.string(), z.number()])),
      message: z.string(),
      code: z.string(),
    }),
  ),
});

export interface ValidationProblem {
  type: 'about:blank';
  title: 'Unprocessable Content';
  status: 422;
  detail: 'Request validation failed';
  errors: ValidationIssue[];
}

/** Builds the 422 problem details body for the given issues. */
export function validationProblem(issues: ValidationIssue[]): ValidationProblem {
  return {
    type: 'about:blank',
    title: 'Unprocessable Content',
    status: 422,
    detail: 'Request validation failed',
    errors: issues,
  };
}
