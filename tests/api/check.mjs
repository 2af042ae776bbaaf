// SPDX-License-Identifier: MIT
//
// check.mjs NODE_DIR RECORDS_DIR - judge recorded model requests the way
// the real APIs would.
//
// RECORDS_DIR holds one folder per scenario run, each with NNNN.json
// files written by tests/support/openai_stub.py: {method, path, headers,
// body}. The provider is known from the path (/v1/chat/completions or
// /v1/messages). Every request goes through four judges:
//
//   tsc      the body as an object literal typed ChatCompletionCreateParams
//            (openai v4) or MessageCreateParams (@anthropic-ai/sdk), one
//            .ts file each, `tsc --noEmit --strict`: wrong types, missing
//            members and (excess-property checks) unknown members
//   ajv      openai only: the CreateChatCompletionRequest schema of the
//            official OpenAPI document (openai-chat-completions-request.schema.json)
//   rules    what the APIs enforce and the types cannot say: calls answered
//            before the next turn, ids unique, tool names, parameter
//            schemas, no null or blank content, stream_options only when
//            streaming, anthropic roles alternating from user, max_tokens
//   headers  Authorization: Bearer (openai); x-api-key, anthropic-version
//
// Planted bad requests are judged in the same run: each names the judges
// that must reject it, and the check fails if one lets it through, so a
// judge that sees nothing cannot pass. Exit 0 when every real request
// passes every judge and every planted one is rejected.
//
// NODE_DIR is where scripts/api-deps.sh installed the npm packages; the
// .ts files are written to NODE_DIR/check/ so that they resolve them.

import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const [nodeDir, recordsDir] = process.argv.slice(2);
if (!nodeDir || !recordsDir) {
	console.error("usage: check.mjs NODE_DIR RECORDS_DIR");
	process.exit(2);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(nodeDir, "package.json"));
const Ajv2020 = require("ajv/dist/2020").default;

const NAME_RE = /^[a-zA-Z0-9_-]{1,64}$/;
const blank = (s) => typeof s === "string" && s.trim() === "";
const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

// ---- ajv --------------------------------------------------------------

const doc = JSON.parse(
	fs.readFileSync(path.join(here, "openai-chat-completions-request.schema.json"), "utf8"),
);
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
const openaiSchema = ajv.compile({
	$id: "openai-request",
	$ref: "#/components/schemas/CreateChatCompletionRequest",
	components: { schemas: doc.schemas },
});
// Tool parameter schemas: valid JSON Schema (draft 2020-12 meta-schema).
const schemaAjv = new Ajv2020({ strict: false, validateFormats: false });

function ajvJudge(item) {
	if (item.provider !== "openai") return [];
	if (openaiSchema(item.json)) return [];
	return openaiSchema.errors
		.slice(0, 3)
		.map((e) => `${e.instancePath || "/"} ${e.message}`);
}

// ---- rules --------------------------------------------------------------

function schemaProblems(where, s, out) {
	if (!isObj(s)) {
		out.push(`${where}: the parameter schema is not an object`);
		return;
	}
	if (s.type !== "object") out.push(`${where}: the parameter schema's type is not "object"`);
	if (!schemaAjv.validateSchema(s))
		out.push(`${where}: not a valid JSON Schema: ${schemaAjv.errorsText(schemaAjv.errors)}`);
}

function toolNames(names, out) {
	const seen = new Set();
	for (const [where, n] of names) {
		if (typeof n !== "string" || !NAME_RE.test(n)) out.push(`${where}: tool name ${JSON.stringify(n)}`);
		else if (seen.has(n)) out.push(`${where}: tool ${n} declared twice`);
		seen.add(n);
	}
}

function openaiRules(b) {
	const out = [];
	if (typeof b.model !== "string" || !b.model) out.push("model missing");
	if (!Array.isArray(b.messages) || !b.messages.length) {
		out.push("messages missing or empty");
		return out;
	}
	if ("stream_options" in b && b.stream !== true) out.push("stream_options without stream: true");
	if ("max_tokens" in b && !(Number.isInteger(b.max_tokens) && b.max_tokens > 0))
		out.push("max_tokens is not a positive integer");
	const ids = new Set();
	let open = null; // ids of the last assistant's calls not yet answered
	b.messages.forEach((m, i) => {
		const at = `messages[${i}]`;
		if (!isObj(m)) {
			out.push(`${at}: not an object`);
			return;
		}
		if ("content" in m && m.content === null) out.push(`${at}: content is null`);
		if (typeof m.content === "string" && m.content !== "" && blank(m.content))
			out.push(`${at}: content is white space only`);
		if (m.content === "" && m.role !== "assistant") out.push(`${at}: empty ${m.role} content`);
		if (m.role === "tool") {
			if (!open || !open.has(m.tool_call_id))
				out.push(`${at}: tool result ${m.tool_call_id} answers no pending call`);
			else open.delete(m.tool_call_id);
			return;
		}
		if (open && open.size)
			out.push(`${at}: ${m.role} message before the results of ${[...open].join(", ")}`);
		open = null;
		if (m.role !== "assistant") return;
		const calls = m.tool_calls;
		if (!("content" in m) && !(Array.isArray(calls) && calls.length))
			out.push(`${at}: assistant message with neither content nor tool calls`);
		if (calls === undefined) return;
		if (!Array.isArray(calls) || !calls.length) {
			out.push(`${at}: tool_calls is not a non-empty array`);
			return;
		}
		open = new Set();
		calls.forEach((c, k) => {
			const cat = `${at}.tool_calls[${k}]`;
			if (typeof c.id !== "string" || !c.id) out.push(`${cat}: no id`);
			else if (ids.has(c.id)) out.push(`${cat}: id ${c.id} used twice`);
			ids.add(c.id);
			open.add(c.id);
			const fn = c.function || {};
			if (typeof fn.name !== "string" || !NAME_RE.test(fn.name))
				out.push(`${cat}: tool name ${JSON.stringify(fn.name)}`);
			let args;
			try {
				args = JSON.parse(fn.arguments);
			} catch {
				args = undefined;
			}
			if (!isObj(args)) out.push(`${cat}: arguments are not a JSON object`);
		});
	});
	if (open && open.size) out.push(`the last calls are unanswered: ${[...open].join(", ")}`);
	if (b.tools !== undefined) {
		if (!Array.isArray(b.tools) || !b.tools.length) out.push("tools is not a non-empty array");
		else {
			toolNames(
				b.tools.map((t, i) => [`tools[${i}]`, t?.function?.name]),
				out,
			);
			b.tools.forEach((t, i) => schemaProblems(`tools[${i}]`, t?.function?.parameters, out));
		}
	}
	return out;
}

function anthropicRules(b) {
	const out = [];
	if (typeof b.model !== "string" || !b.model) out.push("model missing");
	if (!(Number.isInteger(b.max_tokens) && b.max_tokens > 0)) out.push("max_tokens missing or not positive");
	if ("stream_options" in b) out.push("stream_options is not an anthropic field");
	if ("system" in b && (typeof b.system !== "string" || blank(b.system))) out.push("system is blank or not text");
	if (!Array.isArray(b.messages) || !b.messages.length) {
		out.push("messages missing or empty");
		return out;
	}
	const ids = new Set();
	let open = null;
	b.messages.forEach((m, i) => {
		const at = `messages[${i}]`;
		const want = i % 2 ? "assistant" : "user";
		if (!isObj(m)) {
			out.push(`${at}: not an object`);
			return;
		}
		if (m.role !== want) out.push(`${at}: role ${m.role}, expected ${want} (roles alternate from user)`);
		if (typeof m.content === "string") {
			if (blank(m.content)) out.push(`${at}: blank content`);
			if (open && open.size) out.push(`${at}: the results of ${[...open].join(", ")} are missing`);
			open = null;
			return;
		}
		if (!Array.isArray(m.content) || !m.content.length) {
			out.push(`${at}: content is neither text nor a non-empty list of blocks`);
			return;
		}
		const answering = open;
		open = null;
		let seenOther = false;
		const calls = new Set();
		m.content.forEach((bl, k) => {
			const bat = `${at}.content[${k}]`;
			if (!isObj(bl)) {
				out.push(`${bat}: not an object`);
				return;
			}
			if (bl.type === "text") {
				if (typeof bl.text !== "string" || blank(bl.text))
					out.push(`${bat}: text block without non-white-space text`);
				seenOther = true;
			} else if (bl.type === "tool_use") {
				if (m.role !== "assistant") out.push(`${bat}: tool_use in a ${m.role} message`);
				if (typeof bl.id !== "string" || !bl.id) out.push(`${bat}: no id`);
				else if (ids.has(bl.id)) out.push(`${bat}: id ${bl.id} used twice`);
				ids.add(bl.id);
				calls.add(bl.id);
				if (typeof bl.name !== "string" || !NAME_RE.test(bl.name))
					out.push(`${bat}: tool name ${JSON.stringify(bl.name)}`);
				if (!isObj(bl.input)) out.push(`${bat}: input is not an object`);
			} else if (bl.type === "tool_result") {
				if (m.role !== "user") out.push(`${bat}: tool_result in a ${m.role} message`);
				if (seenOther) out.push(`${bat}: tool_result after other blocks`);
				if (!answering || !answering.has(bl.tool_use_id))
					out.push(`${bat}: tool_result ${bl.tool_use_id} answers no tool_use of the message before`);
				else answering.delete(bl.tool_use_id);
				if (typeof bl.content === "string" && blank(bl.content))
					out.push(`${bat}: blank tool_result content`);
			} else {
				seenOther = true;
			}
		});
		if (answering && answering.size)
			out.push(`${at}: no tool_result for ${[...answering].join(", ")}`);
		if (calls.size) open = calls;
	});
	if (open && open.size) out.push(`the last tool_use blocks are unanswered: ${[...open].join(", ")}`);
	if (b.tools !== undefined) {
		if (!Array.isArray(b.tools)) out.push("tools is not a list");
		else {
			toolNames(
				b.tools.map((t, i) => [`tools[${i}]`, t?.name]),
				out,
			);
			b.tools.forEach((t, i) => schemaProblems(`tools[${i}]`, t?.input_schema, out));
		}
	}
	return out;
}

function rulesJudge(item) {
	if (!isObj(item.json)) return ["the body is not a JSON object"];
	return item.provider === "openai" ? openaiRules(item.json) : anthropicRules(item.json);
}

// ---- headers -------------------------------------------------------------

function headersJudge(item) {
	const h = item.headers;
	const out = [];
	if (!/^application\/json\b/.test(h["content-type"] || "")) out.push("Content-Type is not application/json");
	if (item.provider === "openai") {
		if (!/^Bearer \S+$/.test(h.authorization || "")) out.push("no Authorization: Bearer KEY");
	} else {
		if (!/^\S+$/.test(h["x-api-key"] || "")) out.push("no x-api-key");
		if (!/^\d{4}-\d{2}-\d{2}$/.test(h["anthropic-version"] || "")) out.push("no anthropic-version");
	}
	return out;
}

// ---- tsc ----------------------------------------------------------------

function tscJudgeAll(items) {
	const dir = path.join(nodeDir, "check");
	fs.rmSync(dir, { recursive: true, force: true });
	fs.mkdirSync(dir, { recursive: true });
	fs.writeFileSync(
		path.join(dir, "tsconfig.json"),
		JSON.stringify({
			compilerOptions: {
				strict: true,
				noEmit: true,
				skipLibCheck: true,
				target: "es2022",
				module: "esnext",
				moduleResolution: "bundler",
				types: [],
			},
			include: ["*.ts"],
		}),
	);
	items.forEach((item, i) => {
		item.ts = `body${String(i).padStart(4, "0")}.ts`;
		const [type, from] =
			item.provider === "openai"
				? ["ChatCompletionCreateParams", "openai/resources/chat/completions"]
				: ["MessageCreateParams", "@anthropic-ai/sdk/resources/messages"];
		fs.writeFileSync(
			path.join(dir, item.ts),
			`// ${item.name}\nimport type { ${type} } from "${from}";\n` +
				`export const body: ${type} = ${item.bodyText};\n`,
		);
	});
	const tsc = path.join(nodeDir, "node_modules", "typescript", "bin", "tsc");
	const r = spawnSync(process.execPath, [tsc, "-p", dir, "--pretty", "false"], {
		encoding: "utf8",
		maxBuffer: 64 << 20,
	});
	const byFile = new Map();
	let stray = [];
	for (const line of (r.stdout + r.stderr).split("\n")) {
		const m = /^(?:.*\/)?(body\d{4}\.ts)\(\d+,\d+\): (error .*)$/.exec(line);
		if (m) {
			if (!byFile.has(m[1])) byFile.set(m[1], []);
			byFile.get(m[1]).push(m[2]);
		} else if (/error/.test(line)) stray.push(line);
	}
	if (r.status !== 0 && !byFile.size) stray.push(`tsc exited ${r.status} with no diagnostics per file`);
	for (const item of items) item.verdicts.tsc = (byFile.get(item.ts) || []).slice(0, 3);
	return stray;
}

// ---- the requests ---------------------------------------------------------

function loadRecords() {
	const items = [];
	const runs = fs.readdirSync(recordsDir).sort();
	for (const run of runs) {
		const files = fs
			.readdirSync(path.join(recordsDir, run))
			.filter((f) => f.endsWith(".json"))
			.sort();
		if (!files.length) items.push({ name: run, missing: true });
		for (const f of files) {
			const rec = JSON.parse(fs.readFileSync(path.join(recordsDir, run, f), "utf8"));
			const provider = rec.path === "/v1/messages" ? "anthropic" : "openai";
			items.push({ name: `${run}/${f}`, provider, headers: rec.headers, bodyText: rec.body });
		}
	}
	return items;
}

const OPENAI_HEADERS = { "content-type": "application/json", authorization: "Bearer sk-planted" };
const ANTHROPIC_HEADERS = {
	"content-type": "application/json",
	"x-api-key": "sk-planted",
	"anthropic-version": "2023-06-01",
};
const PARAMS = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };

function openaiBase() {
	return {
		model: "gpt-4.1-mini",
		messages: [
			{ role: "system", content: "Be brief." },
			{ role: "user", content: "Read a." },
			{
				role: "assistant",
				content: "Reading.",
				tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: '{"path":"a"}' } }],
			},
			{ role: "tool", tool_call_id: "c1", content: "alpha" },
			{ role: "user", content: "Thanks." },
		],
		tools: [{ type: "function", function: { name: "read_file", description: "Read.", parameters: PARAMS } }],
	};
}

function anthropicBase() {
	return {
		model: "claude-sonnet-4-5",
		max_tokens: 1024,
		system: "Be brief.",
		messages: [
			{ role: "user", content: [{ type: "text", text: "Read a." }] },
			{
				role: "assistant",
				content: [
					{ type: "text", text: "Reading." },
					{ type: "tool_use", id: "t1", name: "read_file", input: { path: "a" } },
				],
			},
			{
				role: "user",
				content: [
					{ type: "tool_result", tool_use_id: "t1", content: "alpha", is_error: false },
					{ type: "text", text: "Thanks." },
				],
			},
		],
		tools: [{ name: "read_file", description: "Read.", input_schema: PARAMS }],
	};
}

// Each planted request: what is wrong, the judges that must say so.
function planted() {
	const list = [];
	const o = (name, expect, edit, headers = OPENAI_HEADERS) => {
		const b = openaiBase();
		edit(b);
		list.push({ name: `planted/openai: ${name}`, provider: "openai", expect, headers, bodyText: JSON.stringify(b) });
	};
	const a = (name, expect, edit, headers = ANTHROPIC_HEADERS) => {
		const b = anthropicBase();
		edit(b);
		list.push({
			name: `planted/anthropic: ${name}`,
			provider: "anthropic",
			expect,
			headers,
			bodyText: JSON.stringify(b),
		});
	};
	// the controls: the bases themselves pass every judge
	o("control", [], () => {});
	a("control", [], () => {});
	o("unknown top-level member", ["tsc"], (b) => (b.temprature = 0.2));
	o("unknown member in a message", ["tsc"], (b) => (b.messages[1].nmae = "x"));
	o("messages is a string", ["tsc", "ajv", "rules"], (b) => (b.messages = "hi"));
	o("unknown role", ["tsc", "ajv"], (b) => (b.messages[1].role = "robot"));
	o("max_tokens as text", ["tsc", "ajv", "rules"], (b) => (b.max_tokens = "100"));
	o("tool call type missing", ["tsc", "ajv"], (b) => delete b.messages[2].tool_calls[0].type);
	o("content null without tool calls", ["rules"], (b) =>
		b.messages.push({ role: "assistant", content: null }, { role: "user", content: "more" }),
	);
	o("white-space content", ["rules"], (b) => (b.messages[4].content = " \n"));
	o("call left unanswered", ["rules"], (b) => b.messages.splice(3, 1));
	o("result with no call", ["rules"], (b) => (b.messages[3].tool_call_id = "c9"));
	o("duplicate call ids", ["rules"], (b) => {
		b.messages[2].tool_calls.push(structuredClone(b.messages[2].tool_calls[0]));
		b.messages.splice(4, 0, { role: "tool", tool_call_id: "c1", content: "again" });
	});
	o("bad tool name", ["rules"], (b) => (b.tools[0].function.name = "read file!"));
	o("parameters not an object schema", ["rules"], (b) => (b.tools[0].function.parameters = { type: "string" }));
	o("parameters not a JSON Schema", ["rules"], (b) => (b.tools[0].function.parameters = { type: "object", required: "path" }));
	o("arguments not JSON", ["rules"], (b) => (b.messages[2].tool_calls[0].function.arguments = "{not json"));
	o("stream_options without stream", ["rules"], (b) => (b.stream_options = { include_usage: true }));
	o("no Authorization header", ["headers"], () => {}, { "content-type": "application/json" });
	o("Authorization without Bearer", ["headers"], () => {}, { ...OPENAI_HEADERS, authorization: "sk-planted" });
	a("unknown top-level member", ["tsc", "rules"], (b) => (b.stream_options = { include_usage: true }));
	a("max_tokens missing", ["tsc", "rules"], (b) => delete b.max_tokens);
	a("content null", ["tsc", "rules"], (b) => (b.messages[0].content = null));
	a("unknown block type", ["tsc"], (b) => (b.messages[0].content[0].type = "txt"));
	a("white-space text block", ["rules"], (b) => b.messages[1].content.unshift({ type: "text", text: "\n\n" }));
	a("empty text block", ["rules"], (b) => (b.messages[0].content[0].text = ""));
	a("roles do not alternate", ["rules"], (b) =>
		b.messages.splice(1, 0, { role: "user", content: [{ type: "text", text: "again" }] }),
	);
	a("starts with assistant", ["rules"], (b) => b.messages.shift());
	a("tool_use left unanswered", ["rules"], (b) => b.messages[2].content.shift());
	a("tool_result after text", ["rules"], (b) => b.messages[2].content.reverse());
	a("duplicate tool_use ids", ["rules"], (b) => {
		b.messages[1].content.push({ type: "tool_use", id: "t1", name: "read_file", input: {} });
	});
	a("tool input not an object", ["rules"], (b) => (b.messages[1].content[1].input = "a"));
	a("bad tool name", ["rules"], (b) => (b.tools[0].name = "read.file"));
	a("input_schema not an object schema", ["tsc", "rules"], (b) => (b.tools[0].input_schema = { type: "array" }));
	a("no anthropic-version", ["headers"], () => {}, { "content-type": "application/json", "x-api-key": "k" });
	a("no x-api-key", ["headers"], () => {}, { "content-type": "application/json", "anthropic-version": "2023-06-01" });
	return list;
}

// ---- judge ----------------------------------------------------------------

const JUDGES = ["tsc", "ajv", "rules", "headers"];
const records = loadRecords();
const plants = planted();
let failures = 0;
const fail = (msg) => {
	failures++;
	console.log(`FAIL ${msg}`);
};

for (const r of records.filter((r) => r.missing)) fail(`${r.name}: no request recorded`);
const items = [...records.filter((r) => !r.missing), ...plants];
for (const item of items) {
	item.verdicts = {};
	try {
		item.json = JSON.parse(item.bodyText);
	} catch (e) {
		item.json = undefined;
	}
	item.verdicts.rules = item.json === undefined ? ["the body is not JSON"] : rulesJudge(item);
	item.verdicts.ajv = item.json === undefined ? [] : ajvJudge(item);
	item.verdicts.headers = headersJudge(item);
	if (item.json === undefined) item.bodyText = "null as never";
}
for (const line of tscJudgeAll(items)) fail(`tsc: ${line}`);

const seen = { openai: 0, anthropic: 0, streamed: 0, whole: 0 };
for (const item of items.filter((i) => !i.expect)) {
	seen[item.provider]++;
	seen[item.json?.stream === true ? "streamed" : "whole"]++;
	for (const j of JUDGES)
		for (const why of item.verdicts[j]) fail(`${item.name}: ${j}: ${why}`);
}
let rejected = 0;
for (const item of plants) {
	for (const j of JUDGES) {
		const said = item.verdicts[j].length > 0;
		const must = item.expect.includes(j);
		if (must && !said) fail(`${item.name}: ${j} let it through`);
		else if (!must && said && !item.expect.length)
			fail(`${item.name}: ${j} rejected a good request: ${item.verdicts[j][0]}`);
		else if (must) rejected++;
	}
}
for (const k of Object.keys(seen)) if (!seen[k]) fail(`no ${k} request was recorded`);
console.log(
	`check: ${items.length - plants.length} recorded requests (openai ${seen.openai}, anthropic ${seen.anthropic}; ` +
		`streamed ${seen.streamed}, not ${seen.whole}), ${plants.length} planted (${rejected} rejections as expected), ` +
		`${failures} failure(s)`,
);
process.exit(failures ? 1 : 0);
