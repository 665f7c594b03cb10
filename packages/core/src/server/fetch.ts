import type { Runtime } from '../runtime-contract.js';
import { answerWeb } from '../wire/web.js';

/** What a platform adds to a Web request: its `waitUntil`, where it has one. */
export interface FetchPlatform {
  waitUntil?: ((promise: Promise<unknown>) => void) | undefined;
}

export function handleFetch(app: Runtime, web: globalThis.Request, platform?: FetchPlatform): Promise<globalThis.Response> {
  return answerWeb(app, web, platform?.waitUntil);
}
