export { z } from 'zod';
export {
  ParamSource,
  header,
  cookie,
  query,
  body,
  isParamSource,
  type ParamOptions,
  type ParamLocation,
  type ExplicitLocation,
} from './sources.js';
export { compileBinder, type BindResult, type Binder } from './binder.js';
export { MAX_ISSUES } from './bounded.js';
export { checkParams, describeParams, type ParamDescriptor, type BodyDescriptor } from './describe.js';
export type { ParamSpec, ParamsShape, BinderPlan } from './plan.js';
export type { ValidationIssue } from './issues.js';
export type { RawInput } from './readers.js';
export { pickQuery, queryValues } from './query-values.js';
export {
  file,
  form,
  compileForm,
  fileOptionsOf,
  brandUploadedFile,
  isUploadedFile,
  FormSource,
  DEFAULT_MAX_FILE_SIZE,
  MULTIPART,
  URLENCODED,
  type UploadedFile,
  type FileOptions,
  type FileSchema,
  type FormField,
  type FormPlan,
} from './uploads.js';
export { compiledParser, type SchemaParser, type ParseIssue } from './compiled.js';
export { compileJsonWriter, type JsonWriter } from './json-writer.js';
export { generateFunction } from './generate.js';
export { isArrayLikeSchema, isOptional as isOptionalSchema } from './convert.js';
export {
  ProblemDetailsSchema,
  problemDetailsSchema,
  problemSchemaFor,
  ValidationProblemSchema,
  validationProblemSchema,
  validationProblem,
  type ValidationProblem,
} from './problem.js';
export type { PathParamNames, InferInput, SchemaInput, SchemaOutput } from './infer.js';
export {
  isStandardSchema,
  isZodSchema,
  validate,
  validateSync,
  standardJsonSchema,
  useValibotJsonSchema,
  type Schema,
  type SchemaIssue,
  type ValidateResult,
  type JsonSchema,
  type StandardSchemaV1,
} from './standard.js';
export { durationMs, durationSeconds, HOUR, type Duration, type DurationOptions, type DurationUnit } from './duration.js';
