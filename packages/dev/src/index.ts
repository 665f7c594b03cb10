export { findApp, loadApp } from './load.js';
export { clientCommand, devCommand, openapiCommand, routesCommand } from './commands.js';
export { clientTypes, untypedOperations, writeClientTypes } from './client.js';
