// `@fnapi/core/extend`: what packages that extend fnapi (jobs, mcp, monitoring, auth, middleware) need
// of core beyond what apps write. Apps never import it; it is off the main entry.
export {
  type Extensible,
  type Extension,
  type ExtensionKey,
  extensionKey,
  METRICS_REGISTRY,
  provide,
  provided,
  WORKER_RUNTIME,
  type WorkerRuntime,
} from './app/extensions.js';
// Node's built-ins at their point of use, the one way every package reaches them.
export { builtin, nodeBuiltin } from './platform/platform.js';
