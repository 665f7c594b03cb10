import { z } from '@fnapi/validation';

/** Name of the shared problem-details component. */
export const PROBLEM_DETAILS_COMPONENT = 'ProblemDetails';
/** Default name of the 422 body component (a schema with its own id keeps that id). */
export const VALIDATION_PROBLEM_COMPONENT = 'ValidationProblem';

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
