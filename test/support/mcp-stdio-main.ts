// A Toolgate MCP server over stdio for tests: `node --import tsx test/support/mcp-stdio-main.ts CONFIG_JSON`
// with CONFIG_JSON = { workspace, state, ledger, grant? }. Exits when the client closes stdin.
import type { TaskGrant } from '../../src/policy/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { serveMcpStdio } from '../../src/server/index.js';
import { builtinTools } from '../../src/tools/index.js';
import { slowTool } from './slow-tool.js';

interface Config {
  readonly workspace: string;
  readonly state: string;
  readonly ledger: string;
  readonly grant?: TaskGrant;
  readonly taskId?: string;
  readonly maxMessageBytes?: number;
}

const config = JSON.parse(process.argv[2] ?? '{}') as Config;
const rt = await createRuntime({
  workspace: config.workspace,
  stateDir: config.state,
  tools: [...builtinTools(), slowTool(config.ledger)],
  ...(config.grant ? { grant: config.grant } : {}),
});
const serving = serveMcpStdio(rt, { ...(config.taskId ? { taskId: config.taskId } : {}), ...(config.maxMessageBytes ? { maxMessageBytes: config.maxMessageBytes } : {}), onError: (e) => process.stderr.write(`mcp: ${e.message}\n`) });
await serving.closed;
await rt.close();
