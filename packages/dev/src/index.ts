export { findApp, loadApp } from './load.js';
export { devCommand, openapiCommand, routesCommand } from './commands.js';
