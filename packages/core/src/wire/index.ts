// `@fnapi/core/transport`: what a transport or a serverless adapter needs to carry requests in and
// answers out. Apps never import it; it is off the main entry.
export { type Deliver, type Runtime, type RuntimeLimits, runtimeOf, type Servable } from '../serve/runtime-contract.js';
export { serialize, toChunk, toWebStream, type Serialized, type SerializeContext } from './serialize.js';
export { collectBody, tooLarge } from '../http/body.js';
export { writeChunk, writeChunks, type ChunkSink } from './stream-writer.js';
export { afterAnswer, answer, closeStream, finish } from './answer.js';
export { refuse, type RequestTarget, splitTarget, writeRaw, type RawSocket } from './refuse.js';
export { drainingReason, StreamInterrupted } from '../http/interrupted.js';
export { type BodySink, type NodeResponse, type NodeWriteOptions, streamBody, writeNode } from './node-writer.js';
export { drain } from '../http/deferred.js';
export { requestFrom, type RequestParts } from './request-from.js';
export { answerWeb, toWebResponse, webParts } from './web.js';
export type { Platform, RuntimeName } from '../platform/platform.js';
