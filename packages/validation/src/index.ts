export { z } from 'zod';
export {
  ParamSource,
  header,
  cookie,
  query,
  body,
  isParamSource,
  type ParamLocation,
  type ExplicitLocation,
} from './sources.js';
export { compileBinder, type BindResult, type Binder } from './binder.js';
export { describeParams, type ParamDescriptor, type BodyDescriptor } from './describe.js';
export type { ParamSpec, ParamsShape, BinderPlan } from './plan.js';
export type { ValidationIssue } from './issues.js';
export type { RawInput } from './readers.js';
export { queryValues } from './query-values.js';
export { compiledParser, type SchemaParser } from './compiled.js';
export { isArrayLikeSchema } from './convert.js';
export { ProblemDetailsSchema, ValidationProblemSchema, validationProblem, type ValidationProblem } from './problem.js';
export type { PathParamNames, InferInput } from './infer.js';
