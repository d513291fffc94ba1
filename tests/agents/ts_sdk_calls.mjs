// Drive `jobs-tui mcp` with the TypeScript SDK's own client, the one most MCP clients
// (the MCP Inspector among them) are built on, and print what the SDK handed back.
//
// usage: node ts_sdk_calls.mjs SDK_PREFIX CALLS_JSON -- COMMAND ARGS...
//   SDK_PREFIX: the directory `npm install --prefix` put @modelcontextprotocol/sdk in
//   CALLS_JSON: [{"name": ..., "arguments": {...}}, ...]
// Prints one JSON object: {"tools": [names], "calls": [{name, result} | {name, thrown}]}.
// A call the SDK refuses (its output-schema validation, a protocol error) is "thrown",
// with the SDK's own message: what a user of such a client would see instead of ours.
import { createRequire } from "node:module";
import { join } from "node:path";

const [prefix, callsJson, dashes, command, ...args] = process.argv.slice(2);
if (dashes !== "--" || !command) {
  console.error("usage: node ts_sdk_calls.mjs SDK_PREFIX CALLS_JSON -- COMMAND ARGS...");
  process.exit(2);
}
const require = createRequire(join(prefix, "package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

const transport = new StdioClientTransport({
  command,
  args,
  env: { ...process.env },
  cwd: process.cwd(),
  stderr: "inherit",
});
const client = new Client({ name: "ts-sdk-test", version: "0" });
await client.connect(transport);
const out = { tools: [], calls: [] };
try {
  // Listing first, as every client does: it is what arms the SDK's output validators.
  out.tools = (await client.listTools()).tools.map((tool) => tool.name);
  for (const call of JSON.parse(callsJson)) {
    try {
      const result = await client.callTool({ name: call.name, arguments: call.arguments });
      out.calls.push({ name: call.name, result });
    } catch (error) {
      out.calls.push({ name: call.name, thrown: String(error && error.message ? error.message : error) });
    }
  }
} finally {
  await client.close();
}
process.stdout.write(JSON.stringify(out) + "\n");
