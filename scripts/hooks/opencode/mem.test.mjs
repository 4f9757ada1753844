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
function fixture(name) {
  return JSON.parse(readFileSync(join(fixtures, name), "utf8").replaceAll("/home/dev/src/shop-api", project));
}

test("a whole session: created, message, edit, compacting, system prompt, deleted", async () => {
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

  // The system transform answers from the cache; compacting asks mem again.
  const system = { system: ["You are OpenCode."] };
  await hooks["experimental.chat.system.transform"]({ sessionID: id, model: {} }, system);
  assert.equal(system.system.length, 2);
  assert.equal(system.system[0], "You are OpenCode.");
  assert.match(system.system[1], /^<memory_context project="test\/shop-api">/);
  assert.match(system.system[1], /decision [0-9-]+ Refund retries come from cfg.Refund.MaxRetries/);
  const compacting = { context: [] };
  await hooks["experimental.session.compacting"]({ sessionID: id }, compacting);
  assert.equal(compacting.context.length, 1);
  assert.match(compacting.context[0], /<memory_context/);
  assert.match(compacting.context[0], /Edited internal\/orders\/refund.go/);

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
  const out = { system: [] };
  await hooks["experimental.chat.system.transform"]({ sessionID: "ses_late" }, out);
  assert.equal(out.system.length, 1);
  assert.match(out.system[0], /<memory_context/);
  assert.equal(mem("session", "show", "ses_late").session.agent, "opencode");
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
      const out = { system: ["base"] };
      await hooks["experimental.chat.system.transform"]({ sessionID: "ses_x" }, out);
      assert.deepEqual(out.system, ["base"]);
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
    await hooks["experimental.chat.system.transform"]({ sessionID: "ses_late_run" }, { system: [] });
    process.exit(0);
  `;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: project, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(mem("session", "show", "ses_run").session.status, "ended");
  assert.equal(mem("session", "show", "ses_late_run").session.status, "ended");
});
