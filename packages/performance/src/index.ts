export {
  ConnectionPool,
  PoolClosedError,
  PoolTimeoutError,
  QueryTimeoutError,
  type PoolOptions,
  type PoolStats,
  type PooledConnection,
  type QueryResult,
} from './pool.js';
export { batchProcess, type BatchFunction, type BatchOptions } from './batch.js';
