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
export {
  compileBinder,
  describeParams,
  queryValues,
  type ParamSpec,
  type ParamsShape,
  type ValidationIssue,
  type RawInput,
  type BinderPlan,
  type BindResult,
  type Binder,
  type ParamDescriptor,
  type BodyDescriptor,
} from './binder.js';
export { compiledParser, type SchemaParser } from './compiled.js';
export { isArrayLikeSchema } from './convert.js';
export {
  ProblemDetailsSchema,
  problemSchemaFor,
  ValidationProblemSchema,
  validationProblem,
  type ValidationProblem,
} from './problem.js';
export type { PathParamNames, InferInput } from './infer.js';
