import type { Runtime } from '../runtime-contract.js';
import { answer } from '../wire/answer.js';
import { requestFrom } from '../wire/request-from.js';
import { toWebResponse, webParts } from '../wire/web.js';

export async function handleFetch(app: Runtime, web: globalThis.Request): Promise<globalThis.Response> {
  const request = requestFrom(webParts(web, app.limits.bodyLimit));
  return toWebResponse(await answer(app, request));
}
