// Tests of mem's OpenCode plugin against the real mem binary: node --test.
// MEM_BIN names the binary; without it the test builds one with go build.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const work = mkdtempSync(join(tmpdir(), "mem-opencode-"));
const project = join(work, "shop-api");
const fixtures = join(here, "testdata");

before(() => {
  if (!process.env.MEM_BIN) {
    const bin = join(work, "mem");
    execFileSync("go", ["build", "-o", bin, "./cmd/mem"], { cwd: join(here, "..", "..", ".."), stdio: "inherit" });
    process.env.MEM_BIN = bin;
  }
  process.env.MEM_DB = join(work, "mem.db");
  process.env.MEM_HOOK_LOG = join(work, "hook.log");
  process.env.MEM_PROJECT = "test/shop-api";
  process.env.HOME = join(work, "home");
  execFileSync("mkdir", ["-p", project]);
});

const { MemPlugin } = await import("./mem.js");

function mem(...args) {
  return JSON.parse(execFileSync(process.env.MEM_BIN, [...args, "--json"], { encoding: "utf8" }));
}

// fixture reads a sample OpenCode call, moved into this test's project folder.
// userMessage is a user message as OpenCode hands it to its transforms.
function userMessage(sessionID, id, text) {
  return { info: { id, sessionID, role: "user" }, parts: [{ id: "prt_" + id, sessionID, messageID: id, type: "text", text }] };
}

function fixture(name) {
  return JSON.parse(readFileSync(join(fixtures, name), "utf8").replaceAll("/home/dev/src/shop-api", project));
}

test("a whole session: created, message, edit, agent request, compacting, deleted", async () => {
  // An earlier session left a decision behind.
  execFileSync(process.env.MEM_BIN, ["observe", "--session", "ses_earlier", "--type", "decision",
    "--title", "Refund retries come from cfg.Refund.MaxRetries"], { cwd: project });
  const hooks = await MemPlugin({ directory: project });
  const created = fixture("session-created.json");
  const id = created.properties.info.id;
  await hooks.event({ event: created });
  assert.equal(mem("session", "show", id).session.agent, "opencode");

  await hooks["chat.message"](
    { sessionID: id, agent: "build", messageID: "msg_1" },
    { message: {}, parts: [{ type: "text", text: "Make refund retries configurable <private>token=abc</private>" }] },
  );
  const edit = fixture("tool-execute-after-edit.json");
  await hooks["tool.execute.after"](edit.input, edit.output);
  await hooks["tool.execute.after"](edit.input, edit.output); // the same call twice is stored once
  await hooks["tool.execute.after"](
    { tool: "bash", sessionID: id, callID: "call_02", args: { command: "go test ./..." } },
    { title: "go test", output: "--- FAIL: TestRefund (0.00s)\n    refund_test.go:9: want 5\nFAIL\n", metadata: { exit: 1 } },
  );
  await hooks["tool.execute.after"](
    { tool: "read", sessionID: id, callID: "call_03", args: { filePath: join(project, "go.mod") } },
    { title: "go.mod", output: "module shop", metadata: {} },
  );

  const shown = mem("session", "show", id);
  assert.equal(shown.session.agent_type, "build");
  assert.deepEqual(shown.session.files_read, ["go.mod"]);
  assert.equal(shown.prompts.length, 1);
  assert.equal(shown.prompts[0].text, "Make refund retries configurable");
  const titles = shown.observations.map((o) => `${o.type}: ${o.title}`);
  assert.deepEqual(titles, [
    "change: Edited internal/orders/refund.go: maxRetries := 3 → maxRetries := cfg.Refund.MaxRetries",
    "problem: go test ./... failed: refund_test.go:9: want 5",
  ]);

  // The agent's request gets the block in its first user message, from the
  // cache; compacting asks mem again and its own messages transform adds nothing.
  const msgs = [userMessage(id, "msg_1", "Make refund retries configurable")];
  await hooks["experimental.chat.messages.transform"]({}, { messages: msgs });
  assert.equal(msgs[0].parts.length, 2);
  assert.equal(msgs[0].parts[0].synthetic, true);
  assert.match(msgs[0].parts[0].text, /^<memory_context project="test\/shop-api">/);
  assert.match(msgs[0].parts[0].text, /decision [0-9-]+ Refund retries come from cfg.Refund.MaxRetries/);
  assert.equal(msgs[0].parts[1].text, "Make refund retries configurable");
  await hooks["experimental.chat.messages.transform"]({}, { messages: msgs }); // the next step: still once
  assert.equal(msgs[0].parts.length, 2);
  const compacting = { context: [] };
  await hooks["experimental.session.compacting"]({ sessionID: id }, compacting);
  assert.equal(compacting.context.length, 1);
  assert.match(compacting.context[0], /<memory_context/);
  assert.match(compacting.context[0], /Edited internal\/orders\/refund.go/);
  const head = [userMessage(id, "msg_1", "Make refund retries configurable")];
  await hooks["experimental.chat.messages.transform"]({}, { messages: head });
  assert.equal(head[0].parts.length, 1, "the compaction's own transform is left alone");

  await hooks.event({ event: { type: "session.deleted", properties: { info: { id, directory: project } } } });
  assert.equal(mem("session", "show", id).session.status, "ended");
});

test("a subagent's session is attached to its parent", async () => {
  const hooks = await MemPlugin({ directory: project });
  const info = { id: "ses_child", parentID: "ses_parent", directory: project, title: "sub", time: { created: 1, updated: 1 } };
  await hooks.event({ event: { type: "session.created", properties: { info } } });
  assert.equal(mem("session", "show", "ses_child").session.parent_id, "ses_parent");
});

test("a session the plugin did not see start gets its block on the first request", async () => {
  const hooks = await MemPlugin({ directory: project });
  const msgs = [userMessage("ses_late", "msg_l1", "go on")];
  await hooks["experimental.chat.messages.transform"]({}, { messages: msgs });
  assert.equal(msgs[0].parts.length, 2);
  assert.match(msgs[0].parts[0].text, /<memory_context/);
  assert.equal(mem("session", "show", "ses_late").session.agent, "opencode");
});

test("mem's blocks reach the agent's request only, never the title request", async () => {
  // OpenCode generates the title with the session's ID through the system
  // transform and no messages transform; the agent's request runs both.
  execFileSync(process.env.MEM_BIN, ["observe", "--session", "ses_t0", "--type", "decision",
    "--title", "applyDiscount rounds with Math.round in src/discount.js"], { cwd: project });
  const hooks = await MemPlugin({ directory: project });
  const id = "ses_title";
  await hooks.event({ event: { type: "session.created", properties: { info: { id, directory: project } } } });
  const prompt = "What changed in src/discount.js last time, and where is applyDiscount called from?";
  await hooks["chat.message"]({ sessionID: id, agent: "build", messageID: "msg_t1" },
    { message: { id: "msg_t1", sessionID: id, role: "user" }, parts: [{ type: "text", text: prompt }] });

  const title = { system: ["You are a title generator. You output ONLY a thread title."] };
  const sys = hooks["experimental.chat.system.transform"];
  if (sys) await sys({ sessionID: id, model: {} }, title);
  assert.deepEqual(title.system, ["You are a title generator. You output ONLY a thread title."]);

  const msgs = [userMessage(id, "msg_t1", prompt)];
  const agentSystem = { system: ["You are opencode."] };
  await hooks["experimental.chat.messages.transform"]({}, { messages: msgs });
  if (sys) await sys({ sessionID: id, model: {} }, agentSystem);
  const texts = msgs[0].parts.map((p) => p.text);
  assert.equal(texts.length, 3, JSON.stringify(texts));
  assert.match(texts[0], /^<memory_context/);
  assert.equal(texts[1], prompt);
  assert.match(texts[2], /<mem_context/);
  // A later step of the same turn carries the same parts, once.
  await hooks["experimental.chat.messages.transform"]({}, { messages: msgs });
  assert.equal(msgs[0].parts.length, 3);
  assert.equal(mem("session", "show", id).prompts[0].text, prompt);
});

test("OpenCode keeps working when mem is missing, broken or gives garbage", async () => {
  const real = process.env.MEM_BIN;
  const garbage = join(work, "garbage.sh");
  writeFileSync(garbage, "#!/bin/sh\ncat >/dev/null\necho 'not json'\nexit 3\n", { mode: 0o755 });
  try {
    for (const bin of [join(work, "no-such-mem"), garbage]) {
      process.env.MEM_BIN = bin;
      const hooks = await MemPlugin({ directory: project });
      await hooks.event({ event: { type: "session.created", properties: { info: { id: "ses_x", directory: project } } } });
      const msgs = [userMessage("ses_x", "msg_x", "base")];
      await hooks["experimental.chat.messages.transform"]({}, { messages: msgs });
      assert.deepEqual(msgs[0].parts.map((p) => p.text), ["base"]);
      await hooks["experimental.chat.messages.transform"]({}, {});
      await hooks["tool.execute.after"]({ tool: "edit", sessionID: "ses_x", args: {} }, { output: "" });
      await hooks["chat.message"]({ sessionID: "ses_x" }, { parts: [{ type: "text", text: "hi" }] });
      const c = { context: [] };
      await hooks["experimental.session.compacting"]({ sessionID: "ses_x" }, c);
      assert.deepEqual(c.context, []);
      await hooks.event({}); // malformed calls are ignored too
      await hooks["tool.execute.after"](undefined, undefined);
    }
  } finally {
    process.env.MEM_BIN = real;
  }
});

test("sessions still open when OpenCode exits are ended", () => {
  // opencode run exits without deleting its session: a process of its own.
  const script = `
    const { MemPlugin } = await import(${JSON.stringify(join(here, "mem.js"))});
    const hooks = await MemPlugin({ directory: ${JSON.stringify(project)} });
    await hooks.event({ event: { type: "session.created", properties: { info: { id: "ses_run", directory: ${JSON.stringify(project)} } } } });
    await hooks["experimental.chat.messages.transform"]({}, { messages: [{ info: { id: "m", sessionID: "ses_late_run", role: "user" }, parts: [] }] });
    process.exit(0);
  `;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: project, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(mem("session", "show", "ses_run").session.status, "ended");
  assert.equal(mem("session", "show", "ses_late_run").session.status, "ended");
});

test("prompt contexts are dropped once their message leaves the conversation, and with their session", async () => {
  execFileSync(process.env.MEM_BIN, ["observe", "--session", "ses_p0", "--type", "decision",
    "--title", "priceWithTax rounds half up in src/pricing.js"], { cwd: project });
  execFileSync(process.env.MEM_BIN, ["observe", "--session", "ses_p0", "--type", "problem",
    "--title", "shippingQuote ignores free-shipping coupons in src/shipping.js"], { cwd: project });
  const hooks = await MemPlugin({ directory: project });
  const state = hooks[Symbol.for("mem.opencode.state")];
  const id = "ses_prune";
  await hooks.event({ event: { type: "session.created", properties: { info: { id, directory: project } } } });
  const ask = async (msgID, text) => {
    await hooks["chat.message"]({ sessionID: id, agent: "build", messageID: msgID },
      { message: { id: msgID, sessionID: id, role: "user" }, parts: [{ type: "text", text }] });
  };
  const first = "Where is priceWithTax in src/pricing.js called from?";
  const second = "Why does shippingQuote in src/shipping.js ignore coupons?";
  await ask("msg_p1", first);
  assert.deepEqual([...state.prompts.get(id).keys()], ["msg_p1"], "mem answered the prompt with context");

  // Every request of the conversation carries the context again.
  for (let step = 0; step < 2; step++) {
    const msgs = [userMessage(id, "msg_p1", first)];
    await hooks["experimental.chat.messages.transform"]({}, { messages: msgs });
    assert.match(msgs[0].parts.at(-1).text, /<mem_context/);
  }
  await ask("msg_p2", second);
  assert.deepEqual([...state.prompts.get(id).keys()], ["msg_p1", "msg_p2"]);

  // A request read before msg_p2 was registered keeps msg_p2's context for later.
  await hooks["experimental.chat.messages.transform"]({}, { messages: [userMessage(id, "msg_p1", first)] });
  assert.deepEqual([...state.prompts.get(id).keys()], ["msg_p1", "msg_p2"]);

  // Compaction dropped msg_p1 from what is sent: its context goes.
  const after = [userMessage(id, "msg_p2", second)];
  await hooks["experimental.chat.messages.transform"]({}, { messages: after });
  assert.match(after[0].parts.at(-1).text, /<mem_context/);
  assert.deepEqual([...state.prompts.get(id).keys()], ["msg_p2"]);

  // A second session's contexts go with it when it ends, sent or not.
  const other = "ses_prune_other";
  await hooks["chat.message"]({ sessionID: other, agent: "build", messageID: "msg_o1" },
    { message: { id: "msg_o1", sessionID: other, role: "user" }, parts: [{ type: "text", text: first }] });
  assert.equal(state.prompts.get(other).size, 1);
  for (const s of [id, other]) {
    await hooks.event({ event: { type: "session.deleted", properties: { info: { id: s, directory: project } } } });
  }
  assert.equal(state.prompts.size, 0);
  assert.equal(state.blocks.size, 0);
});
