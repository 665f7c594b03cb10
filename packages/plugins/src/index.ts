export {
  Plugin,
  type EventCallback,
  type HookCallback,
  type OnErrorHook,
  type OnEventHook,
  type PostResponseHook,
  type PreRequestHook,
} from './plugin.js';
export { LoggingPlugin, DEFAULT_TEXT_FORMAT, renderTemplate, type LoggingPluginOptions } from './logging.js';
export type { EventName, HookName, PluginLike, PluginMetadata } from '@fnapi/core/extend';
