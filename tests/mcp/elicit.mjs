// SPDX-License-Identifier: MIT
// elicit.mjs - ask_user over `skit mcp` with the official MCP TypeScript
// SDK's client, which declares the elicitation capability and answers
// the server's elicitation/create with a handler.
//
//   node elicit.mjs SKIT ROOT
//
// Prints one line per check; exits 1 when any failed.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

let failures = 0;
function check(ok, what, detail) {
  if (ok) {
    console.log(`ok: ${what}`);
  } else {
    failures++;
    console.log(`FAIL: ${what}${detail === undefined ? "" : `: ${JSON.stringify(detail)}`}`);
  }
}

const [skit, root] = process.argv.slice(2);
const transport = new StdioClientTransport({
  command: skit,
  args: ["mcp", "--no-config", "--root", root],
  stderr: "inherit",
});
const client = new Client({ name: "skit-elicit-test", version: "1.0.0" },
  { capabilities: { elicitation: {} } });
const asked = [];
let reply = { action: "accept", content: { choice: "blue", other: "SDK-OWN-WORDS" } };
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  asked.push(req.params);
  return reply;
});
await client.connect(transport);

const tools = await client.listTools();
check(tools.tools.some((t) => t.name === "ask_user"), "ask_user is served");

let r = await client.callTool({
  name: "ask_user",
  arguments: { question: "SDK-QUESTION: which colour?", options: ["red", "blue"] },
});
check(asked.length === 1, "one elicitation/create request");
check(asked[0]?.message?.includes("SDK-QUESTION") && asked[0].message.includes("2. blue"),
  "the message holds the question and the options", asked[0]?.message);
check(JSON.stringify(asked[0]?.requestedSchema?.properties?.choice?.enum) === '["red","blue"]',
  "the options are the choice's enum", asked[0]?.requestedSchema);
const text = r.content?.[0]?.text ?? "";
check(!r.isError && text.includes("blue") && text.includes("SDK-OWN-WORDS"),
  "the answer is the tool's result", r);

reply = { action: "decline" };
r = await client.callTool({ name: "ask_user", arguments: { question: "again?" } });
check(!r.isError && (r.content?.[0]?.text ?? "").includes("declined"),
  "a declined question says so", r);

await client.close();
process.exit(failures ? 1 : 0);
