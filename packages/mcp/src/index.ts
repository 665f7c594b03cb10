// `@fnapi/mcp`: the app's endpoints as Model Context Protocol tools and resources, on the official SDK.
export { McpExtension, mcp, type McpOptions } from './server.js';
export type { Expose as McpExpose, Selection as McpSelection } from './catalogue.js';
