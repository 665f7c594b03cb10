export {
  ConnectionPool,
  PoolClosedError,
  PoolTimeoutError,
  type PoolOptions,
  type PoolStats,
  type PooledConnection,
  type QueryResult,
} from './pool.js';
export { batchProcess, type BatchFunction, type BatchOptions } from './batch.js';
