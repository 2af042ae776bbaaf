// SPDX-License-Identifier: MIT
// client.mjs - drive `skit mcp` with the official MCP TypeScript SDK.
//
//   node client.mjs stdio SKIT ROOT [--scripts] [--watch]
//   node client.mjs http URL TOKEN SKILLS_DIR
//
// Lists and gets skills (the Skills extension), checks every digest and
// size against the files, reads resources (text and binary), calls the
// skill tools, gets prompts, and checks logging, progress and ping. With
// --scripts it runs a skill's script; with --watch it adds a skill to
// ROOT and waits for notifications/resources/list_changed. Prints one
// line per check; exits 1 when any failed.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  LoggingMessageNotificationSchema,
  ProgressNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResultSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

let failures = 0;
function check(ok, what, detail) {
  if (ok) {
    console.log(`ok: ${what}`);
  } else {
    failures++;
    console.log(`FAIL: ${what}${detail === undefined ? "" : `: ${JSON.stringify(detail)}`}`);
  }
}

const [mode, ...rest] = process.argv.slice(2);
let transport, skillsDir, flags;
if (mode === "stdio") {
  const [skit, root, ...f] = rest;
  flags = f;
  skillsDir = root;
  const args = ["mcp", "--no-config", "--root", root];
  if (flags.includes("--scripts")) args.push("--allow-scripts");
  transport = new StdioClientTransport({ command: skit, args, stderr: "inherit" });
} else if (mode === "http") {
  const [url, token, dir] = rest;
  flags = [];
  skillsDir = dir;
  transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
} else {
  console.error("usage: client.mjs stdio SKIT ROOT [--scripts] [--watch] | http URL TOKEN DIR");
  process.exit(2);
}

const client = new Client({ name: "skit-mcp-test", version: "1.0.0" });
const logs = [];
let listChanged = 0;
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));
client.setNotificationHandler(ResourceListChangedNotificationSchema, () => listChanged++);
let toolsChanged = 0;
client.setNotificationHandler(ToolListChangedNotificationSchema, () => toolsChanged++);
// Progress is caught here rather than by onprogress: the SDK runs
// notification handlers a microtask late, after a response read in the
// same chunk has already retired the request's progress handler.
const progress = [];
client.setNotificationHandler(ProgressNotificationSchema, (n) => progress.push(n.params));
await client.connect(transport);

function text(result) {
  return (result.content || []).map((c) => c.text || "").join("");
}

function filesOf(dir) {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

async function rpcError(promise) {
  try {
    await promise;
    return null;
  } catch (e) {
    return e;
  }
}

// ---- handshake ----------------------------------------------------------
const caps = client.getServerCapabilities();
const version = client.getServerVersion();
check(version && version.name === "skit", "serverInfo names skit", version);
check(caps && caps.resources && caps.tools && caps.prompts && caps.logging,
  "resources, tools, prompts and logging are declared", caps);
check(caps && caps.extensions && "io.modelcontextprotocol/skills" in caps.extensions,
  "the Skills extension is declared under capabilities.extensions", caps);
await client.ping();
check(true, "ping");

// ---- the Skills extension -----------------------------------------------
const list = await client.request({ method: "skills/list", params: {} }, ResultSchema);
const names = (list.skills || []).map((s) => s.frontmatter.name).sort();
check(JSON.stringify(names) === JSON.stringify(["internal-audit", "release-notes", "unit-convert"]),
  "skills/list lists the three skills", names);
check(list.resultType === "complete" && typeof list.ttlMs === "number" && list.cacheScope,
  "skills/list carries resultType, ttlMs and cacheScope", list);
const rn = (list.skills || []).find((s) => s.frontmatter.name === "release-notes");
check(rn && rn.uri === "skill://release-notes/SKILL.md", "a skill's uri is its SKILL.md", rn && rn.uri);
check(rn && rn.frontmatter.license === "MIT" && rn.frontmatter["argument-hint"] === "VERSION" &&
  rn.frontmatter.metadata && rn.frontmatter.metadata.version === "1.2" &&
  rn.frontmatter.metadata.author === "skit tests",
  "the frontmatter comes through verbatim (quoted \"1.2\" stays a string)", rn && rn.frontmatter);
const ia = (list.skills || []).find((s) => s.frontmatter.name === "internal-audit");
check(ia && ia.frontmatter["user-invocable"] === false, "a plain false is a JSON false", ia && ia.frontmatter);
for (const s of list.skills || []) {
  const dir = join(skillsDir, s.frontmatter.name);
  const want = filesOf(dir).map((f) => `skill://${s.frontmatter.name}/${f}`);
  const got = s.resources.map((r) => r.uri).sort();
  check(JSON.stringify(got) === JSON.stringify(want), `${s.frontmatter.name}: every file is listed`, { got, want });
  for (const r of s.resources) {
    const rel = r.uri.slice(`skill://${s.frontmatter.name}/`.length);
    const bytes = readFileSync(join(dir, rel));
    const digest = "sha256:" + createHash("sha256").update(bytes).digest("hex");
    check(r.digest === digest && r.size === bytes.length, `${r.uri}: digest and size match the file`, r);
  }
}
const got = await client.request({ method: "skills/get", params: { uri: "skill://unit-convert/SKILL.md" } }, ResultSchema);
const fromList = (list.skills || []).find((s) => s.frontmatter.name === "unit-convert");
check(got.skill && JSON.stringify(got.skill) === JSON.stringify(fromList), "skills/get returns the listed entry", got);
let err = await rpcError(client.request({ method: "skills/get", params: { uri: "skill://no-such-skill/SKILL.md" } }, ResultSchema));
check(err && err.code === -32602, "skills/get of an unknown skill is -32602", err && err.code);

// ---- resources ----------------------------------------------------------
const res = await client.listResources();
const uris = res.resources.map((r) => r.uri);
check(uris.includes("skill://release-notes/SKILL.md") && uris.includes("skill://release-notes/references/template.md") &&
  uris.includes("skill://unit-convert/assets/factors.csv"), "resources/list has the skill files", uris);
const tpl = await client.listResourceTemplates();
check(tpl.resourceTemplates.some((t) => t.uriTemplate === "skill://{skill}/{+path}"), "a skill:// resource template", tpl);
const tr = await client.readResource({ uri: "skill://release-notes/references/template.md" });
check(tr.contents[0].text === readFileSync(join(skillsDir, "release-notes/references/template.md"), "utf8"),
  "resources/read returns a text file exactly", tr);
const br = await client.readResource({ uri: "skill://unit-convert/assets/icon.png" });
check(br.contents[0].blob === readFileSync(join(skillsDir, "unit-convert/assets/icon.png")).toString("base64") &&
  br.contents[0].mimeType === "image/png", "resources/read returns a binary file as base64", br);
err = await rpcError(client.readResource({ uri: "skill://release-notes/../unit-convert/SKILL.md" }));
check(err && err.code === -32602, "a skill:// path with .. is refused", err && err.message);

// ---- what a plain client learns (no skills extension) ----------------------
// The instructions and use_skill's description name the skills a model
// may invoke, so that any client's model knows what to ask for.
const instr = client.getInstructions() || "";
check(/Available skills:/.test(instr) && /- release-notes: Drafts release notes/.test(instr) &&
  /- unit-convert: /.test(instr), "initialize's instructions list the skills", instr);
const toolList = (await client.listTools()).tools;
const useSkill = toolList.find((t) => t.name === "use_skill");
check(useSkill && /- release-notes: /.test(useSkill.description) && /- unit-convert: /.test(useSkill.description),
  "use_skill's description lists the skills", useSkill && useSkill.description);
check(client.getServerCapabilities().tools && client.getServerCapabilities().tools.listChanged === true,
  "the server announces tools.listChanged");

// ---- tools --------------------------------------------------------------
const tools = toolList.map((t) => t.name).sort();
const wantTools = ["ask_user", "read_skill_resource", "search_skills", "use_skill"];
if (flags.includes("--scripts")) wantTools.push("run_skill_script");
check(JSON.stringify(tools) === JSON.stringify(wantTools.sort()), "tools/list offers the skill tools", tools);
let r = await client.callTool({ name: "read_skill_resource", arguments: { skill: "release-notes", path: "references/template.md" } });
check(r.isError && /use_skill first/.test(text(r)), "a skill's file is read only after use_skill (disclosure)", r);
await client.setLoggingLevel("debug");
r = await client.callTool({ name: "use_skill", arguments: { name: "release-notes", arguments: "3.1" } }, undefined,
  { onprogress: () => {} });
check(!r.isError && /Write the notes for version 3\.1\./.test(text(r)), "use_skill returns the body with $ARGUMENTS", text(r));
check(progress.length > 0 && typeof progress[0].progressToken === "number" &&
  progress[progress.length - 1].progress === progress[progress.length - 1].total,
  "tools/call reports progress", progress);
check(logs.some((l) => /tools\/call use_skill/.test(String(l.data))), "log messages arrive after logging/setLevel", logs);
r = await client.callTool({ name: "read_skill_resource", arguments: { skill: "release-notes", path: "references/template.md" } });
check(!r.isError && /### Fixed/.test(text(r)), "read_skill_resource reads an active skill's file", text(r));
r = await client.callTool({ name: "read_skill_resource", arguments: { skill: "release-notes", path: "../unit-convert/SKILL.md" } });
check(r.isError, "read_skill_resource refuses ..", text(r));
r = await client.callTool({ name: "search_skills", arguments: { query: "metric imperial conversion" } });
check(/unit-convert/.test(text(r)), "search_skills finds a skill", text(r));
if (flags.includes("--scripts")) {
  r = await client.callTool({ name: "run_skill_script", arguments: { skill: "release-notes", path: "scripts/count.sh", args: ["a", "b", "c"] } });
  check(!r.isError && /entries: 3/.test(text(r)), "run_skill_script runs the script (sandboxed)", text(r));
} else {
  err = await rpcError(client.callTool({ name: "run_skill_script", arguments: { skill: "release-notes", path: "scripts/count.sh" } }));
  check(err && err.code === -32602, "run_skill_script is refused without --allow-scripts", err && err.message);
}

// ---- prompts ------------------------------------------------------------
const prompts = (await client.listPrompts()).prompts.map((p) => p.name).sort();
check(JSON.stringify(prompts) === JSON.stringify(["release-notes", "unit-convert"]),
  "prompts/list has the user-invocable skills only", prompts);
const pg = await client.getPrompt({ name: "unit-convert", arguments: { arguments: "5 lb" } });
check(/Convert 5 lb using the factors/.test(pg.messages[0].content.text), "prompts/get substitutes $ARGUMENTS", pg);
err = await rpcError(client.getPrompt({ name: "internal-audit" }));
check(err && err.code === -32602, "a skill with user-invocable: false is no prompt", err && err.message);

// ---- a root changes -----------------------------------------------------
if (flags.includes("--watch")) {
  const dir = join(skillsDir, "fresh-skill");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "SKILL.md"), "---\nname: fresh-skill\ndescription: Added while the server runs.\n---\nBody.\n");
  // Wait (up to a minute, for a loaded machine) for the notification,
  // then for a listing that has the skill: the folder and its SKILL.md
  // are two changes, and the first may be announced alone.
  let listed = false;
  for (let i = 0; i < 600 && !listed; i++) {
    await new Promise((ok) => setTimeout(ok, 100));
    if (!listChanged) continue;
    const again = await client.request({ method: "skills/list", params: {} }, ResultSchema);
    listed = again.skills.some((s) => s.frontmatter.name === "fresh-skill");
  }
  check(listChanged > 0, "notifications/resources/list_changed after a root changed");
  check(listed, "the new skill is listed after the change");
  check(toolsChanged > 0, "notifications/tools/list_changed after a root changed");
  const fresh = (await client.listTools()).tools.find((t) => t.name === "use_skill");
  check(fresh && /- fresh-skill: Added while the server runs/.test(fresh.description),
    "use_skill's description names the new skill", fresh && fresh.description);
}

await client.close();
console.log(failures ? `${failures} check(s) failed` : "all checks passed");
process.exit(failures ? 1 : 0);
