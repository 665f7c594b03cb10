export { type BinaryOptions, isBinary } from './common.js';
export * from './lambda.js';
export * from './cloud-function.js';
export * from './azure.js';
export * from './vercel.js';
export * from './netlify.js';
