export { findApp, loadApp } from './load.js';
export {
  type CheckableApp,
  type CheckFailure,
  type CheckOptions,
  type CheckReport,
  checkContract,
  type FailureKind,
  formatReport,
  type OperationSummary,
} from './check/contract.js';
export { clientTypes, untypedOperations, writeClientTypes } from './client.js';
export { checkCommand, clientCommand, devCommand, openapiCommand, routesCommand, workerCommand } from './commands.js';
