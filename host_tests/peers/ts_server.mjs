// MCP test server: the official TypeScript SDK (npm @modelcontextprotocol/sdk,
// pinned in tools/node; its McpServer and StreamableHTTPServerTransport do
// the protocol) with tools that make the server talk first, for
// host_tests/test_mcp_peers.py:
//
//   PORT=P NODE_MODULES=tools/node/node_modules node host_tests/peers/ts_server.mjs [MODE]
//
// MODE (default "full"):
//   full     tools below, resources, keep-alive comments every 100 ms on
//            every SSE stream (the SDK's keepAliveMs)
//   notools  one resource and no tools (no tools capability)
//   legacy   the old HTTP+SSE transport (2024-11-05): GET /mcp is the event
//            stream, POST /messages takes the messages (SSEServerTransport)
// Tools (full):
//   ask        elicitInput() not tied to the call: the request goes out on
//              the standalone GET stream; the text is the answer as JSON
//   ask_big    the same with a 3 KB message (an event larger than the
//              client's 1 KB read: the chunk's CRLF comes after it)
//   ask_url    a URL-mode elicitation (its message holds an escape sequence)
//   roots      listRoots() not tied to the call (GET stream): "roots: N"
//   slow       waits 30 s, sending progress every 50 ms; logs
//              "cancelled <requestId> <reason>" when the client cancels
//   annotated  title and annotations (readOnlyHint, destructiveHint)
//   task_only  registered with registerToolTask (execution.taskSupport
//              "required")
// stdout gets one line per event the tests wait for ("cancelled ...").
import path from "node:path";
import { pathToFileURL } from "node:url";
import { randomUUID } from "node:crypto";

const nm = process.env.NODE_MODULES;
const sdk = (p) => import(pathToFileURL(path.join(nm, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { McpServer } = await sdk("server/mcp.js");
const { StreamableHTTPServerTransport } = await sdk("server/streamableHttp.js");
const { SSEServerTransport } = await sdk("server/sse.js");
const { createMcpExpressApp } = await sdk("server/express.js");
const { isInitializeRequest } = await sdk("types.js");
const { InMemoryTaskStore } = await sdk("experimental/tasks/stores/in-memory.js");
const z = (await import(pathToFileURL(path.join(nm, "zod/v4/index.js")).href));

const MODE = process.argv[2] || "full";
const PORT = parseInt(process.env.PORT, 10);
const FORM = {
  type: "object",
  properties: {
    city: { type: "string", title: "City", description: "where you are", default: "Rochdale" },
    days: { type: "integer", title: "Days", minimum: 1, maximum: 7 },
    units: { type: "string", enum: ["metric", "imperial"], default: "metric" },
  },
  required: ["days"],
};

function build() {
  const opts = MODE === "full" ? { capabilities: { tasks: { requests: { tools: { call: {} } } } },
                                   taskStore: new InMemoryTaskStore() } : {};
  const server = new McpServer({ name: "peers-ts-server", version: "1.0.0" }, opts);
  server.registerResource("notes", "file:///notes.txt", { title: "Notes", mimeType: "text/plain",
                                                          description: "a short text" },
    async () => ({ contents: [{ uri: "file:///notes.txt", text: "line one\nline two" }] }));
  if (MODE === "notools") return server;
  server.registerResource("logo", "file:///logo.png", { mimeType: "image/png" },
    async () => ({ contents: [{ uri: "file:///logo.png", mimeType: "image/png",
                                blob: Buffer.alloc(300, 7).toString("base64") }] }));
  const ask = (message) => async () => {
    const r = await server.server.elicitInput({ mode: "form", message, requestedSchema: FORM });
    return { content: [{ type: "text", text: JSON.stringify(r) }] };
  };
  server.registerTool("ask", { description: "asks the user, on the GET stream" },
                      ask("Weather for where?"));
  server.registerTool("ask_big", { description: "asks with a 3 KB message" },
                      ask("Weather for where? " + "x".repeat(3000)));
  server.registerTool("ask_url", { description: "asks the user to open a URL" }, async () => {
    const r = await server.server.elicitInput({ mode: "url", elicitationId: "e1",
      message: "Sign the \u001b[31mform\u001b[0m", url: "https://example.com/sign?x=1" });
    return { content: [{ type: "text", text: JSON.stringify(r) }] };
  });
  server.registerTool("roots", { description: "lists the client's roots" }, async () => {
    const r = await server.server.listRoots();
    return { content: [{ type: "text", text: "roots: " + r.roots.length }] };
  });
  server.registerTool("slow", { description: "30 s with progress", inputSchema: {} }, async (args, extra) => {
    extra.signal.addEventListener("abort", () => {
      console.log("cancelled " + extra.requestId + " " + extra.signal.reason);
    });
    const token = extra._meta?.progressToken;
    for (let i = 1; i <= 600 && !extra.signal.aborted; i++) {
      await new Promise((r) => setTimeout(r, 50));
      if (token !== undefined && !extra.signal.aborted) {
        await extra.sendNotification({ method: "notifications/progress",
                                       params: { progressToken: token, progress: i, total: 600 } });
      }
    }
    return { content: [{ type: "text", text: "slept" }] };
  });
  server.registerTool("annotated", { title: "Annotated Tool", description: "has hints",
    annotations: { readOnlyHint: false, destructiveHint: true } },
    async () => ({ content: [{ type: "text", text: "done" }] }));
  server.experimental.tasks.registerToolTask("task_only", { description: "runs only as a task" }, {
    async createTask(args, { taskStore }) { return { task: await taskStore.createTask({}) }; },
    async getTask(args, { taskId, taskStore }) { return await taskStore.getTask(taskId); },
    async getTaskResult(args, { taskId, taskStore }) { return await taskStore.getTaskResult(taskId); },
  });
  return server;
}

const app = createMcpExpressApp();
const sessions = {};
if (MODE === "legacy") {
  app.get("/mcp", async (req, res) => {
    const t = new SSEServerTransport("/messages", res);
    sessions[t.sessionId] = t;
    await build().connect(t);
  });
  app.post("/messages", async (req, res) => {
    const t = sessions[req.query.sessionId];
    if (!t) return res.status(400).send("unknown session");
    await t.handlePostMessage(req, res, req.body);
  });
} else {
  app.all("/mcp", async (req, res) => {
    const sid = req.headers["mcp-session-id"];
    let t = sid && sessions[sid];
    if (!t) {
      if (sid || req.method !== "POST" || !isInitializeRequest(req.body)) {
        return res.status(400).json({ jsonrpc: "2.0", id: null,
                                      error: { code: -32000, message: "No valid session ID" } });
      }
      t = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(),
        keepAliveMs: MODE === "full" ? 100 : undefined,
        onsessioninitialized: (id) => { sessions[id] = t; } });
      await build().connect(t);
    }
    await t.handleRequest(req, res, req.body);
  });
}
app.listen(PORT, "127.0.0.1", () => console.log("listening " + PORT));
