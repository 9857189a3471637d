export { serveMcpStdio, type StdioServeOptions, type StdioServing } from './stdio.js';
export { createMcpServer, type McpSession, type McpServerOptions } from './mcp-server.js';
export { ToolListing, mcpToolName, annotationsOf, outputSchemaOf, toolDefinitionOf, type McpToolDefinition, type McpToolAnnotations } from './tool-listing.js';
export { callResultOf, DEFAULT_RESULT_SHAPING, type McpCallResult, type ResultShaping } from './call-result.js';
export { serveMcpHttp, type HttpServeOptions, type HttpServing } from './http.js';
export { resolveHttpLimits, openFileLimit, DESCRIPTOR_HEADROOM, type HttpLimits } from './http-limits.js';
export { RESULT_FORMS, formFor, type ResultForm } from './result-form.js';
