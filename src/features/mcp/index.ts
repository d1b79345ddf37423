// The MCP feature: tools, resources and prompts mirroring the routes. Its public face: what the app and other features import.
export { mcpRoutes } from './routes.ts';
