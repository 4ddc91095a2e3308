// MCP test client: the official TypeScript SDK (npm @modelcontextprotocol/sdk,
// pinned in tools/node) driving the board's MCP server (lib/mcpserver/)
// for host_tests/test_mcp_server.py.
//
//   node host_tests/peers/ts_client.mjs URL
//     environment: MCP_TOKEN (the bearer token), NODE_MODULES (tools/node/node_modules)
//
// Prints one JSON object: the server's name and version, the tool names,
// the results of ls, cat /boot.py and the probe script (after
// logging/setLevel, with progress: an event stream), the log lines and
// progress seen, the resource list and one resource read.
import path from "node:path";
import { pathToFileURL } from "node:url";

const nm = process.env.NODE_MODULES;
const sdk = (p) => import(pathToFileURL(path.join(nm, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");
const { LoggingMessageNotificationSchema, CallToolResultSchema } = await sdk("types.js");

const client = new Client({ name: "ts-test", version: "1.0.0" }, { capabilities: {} });
const logs = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params.data));
const transport = new StreamableHTTPClientTransport(new URL(process.argv[2]), {
  requestInit: { headers: { Authorization: "Bearer " + process.env.MCP_TOKEN } },
});
await client.connect(transport);
const out = { server: client.getServerVersion(), protocol: transport.protocolVersion };
out.tools = (await client.listTools()).tools.map((t) => t.name);
out.ls = await client.callTool({ name: "ls", arguments: {} });
out.cat = await client.callTool({ name: "cat", arguments: { file: "/boot.py" } });
await client.setLoggingLevel("info");
const progress = [];
out.probe = await client.request(
  { method: "tools/call", params: { name: "probe", arguments: { count: 2 } } },
  CallToolResultSchema,
  { onprogress: (p) => progress.push([p.progress, p.total]) },
);
out.logs = logs;
out.progress = progress;
out.resources = (await client.listResources()).resources.map((r) => r.uri);
out.read = (await client.readResource({ uri: "file:///boot.py" })).contents;
await transport.terminateSession();
await client.close();
console.log(JSON.stringify(out));
