/** Name of the shared problem-details component. */
export const PROBLEM_DETAILS_COMPONENT = 'ProblemDetails';
/** Default name of the 422 body component (a schema with its own id keeps that id). */
export const VALIDATION_PROBLEM_COMPONENT = 'ValidationProblem';
