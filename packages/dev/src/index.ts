export { findApp, loadApp } from './load.js';
export {
  type CheckableApp,
  type CheckFailure,
  type CheckOptions,
  type CheckReport,
  checkContract,
  checkWarning,
  READ_ONLY_METHODS,
  type FailureKind,
  formatReport,
  type OperationSummary,
} from './check/contract.js';
export { checkTools, formatToolReport, type ToolCheckOptions, type ToolFailure, type ToolReport } from './check/tools.js';
export { clientTypes, untypedOperations, writeClientTypes } from './client.js';
export {
  checkCommand,
  clientCommand,
  deployCommand,
  devCommand,
  mcpCommand,
  openapiCommand,
  openapiDiffCommand,
  routesCommand,
  workerCommand,
} from './commands.js';
export {
  type Change,
  DIFF_FORMATS,
  type DiffFormat,
  type DiffOptions,
  type DiffResult,
  DocumentInputError,
  diffDocuments,
  diffFails,
  diffSummary,
  FAIL_ON,
  type FailOn,
  formatDiff,
  loadDocument,
  type Severity,
} from './diff/index.js';
export { type HaproxyOptions, haproxyConfig } from './deploy/haproxy.js';
