// Every public name of every runtime fnapi package (not @fnapi/dev: no build tool in production): `import { API, z, jwtRequired, CORSMiddleware } from '@fnapi/all'`.
// A test compares this module's exports with the union of the packages' exports.
export * from '@fnapi/validation';
export * from '@fnapi/openapi';
export * from '@fnapi/core';
export * from '@fnapi/middleware';
export * from '@fnapi/plugins';
export * from '@fnapi/auth';
export * from '@fnapi/performance';
export * from '@fnapi/database';
export * from '@fnapi/cache';
export * from '@fnapi/jobs';
export * from '@fnapi/mcp';
export * from '@fnapi/monitoring';
export * from '@fnapi/adapters';
export * from '@fnapi/client';
// Core's `Middleware` is the interface a middleware satisfies; @fnapi/middleware's is the base class
// that implements it. The class is the one users extend, and it satisfies the interface.
export { Middleware } from '@fnapi/middleware';
