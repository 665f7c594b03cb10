export { type BinaryOptions, isBinary } from './platform-result.js';
export * from './lambda.js';
export * from './cloud-function.js';
export * from './azure.js';
export * from './vercel.js';
export * from './netlify.js';
