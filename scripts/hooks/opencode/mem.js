// mem for OpenCode (@memhq/mem opencode plugin).
//
// OpenCode has no command hooks, so this plugin shells out to `mem hook
// opencode` with a small JSON payload and reads {"context": "..."} back. It
// adds mem's recall block to the first user message of each session and the
// prompt-time context to the message that asked for it, both through
// experimental.chat.messages.transform: OpenCode runs that transform only
// for the agent's own requests, so title generation (which shares the
// session ID and the system transform) never sees mem's blocks. The parts
// are added to the copy of the messages OpenCode sends, never stored, and
// marked synthetic. It adds the compaction block when OpenCode compacts, and
// forwards user messages and tool results so that mem records them; sessions
// still open when OpenCode exits are ended then. Nothing here may break
// OpenCode: every failure (mem missing, slow, crashing) ends as "no context".
//
// The file imports nothing but node's own modules: OpenCode needs nothing
// installed to load it.

import { spawn, spawnSync } from "node:child_process";

const DEFAULT_BIN = "__MEM_BIN__";
const TIMEOUT_MS = 5000;
const EXIT_TIMEOUT_MS = 2000; // per session still open when OpenCode exits

function memBin() {
  const env = process.env.MEM_BIN;
  if (env) return env;
  return DEFAULT_BIN.startsWith("__") ? "mem" : DEFAULT_BIN;
}

// callMem sends one payload to `mem hook opencode` and resolves with the
// reply object, or null on any failure. It never rejects.
function callMem(payload) {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(memBin(), ["hook", "opencode"], { stdio: ["pipe", "pipe", "ignore"] });
    } catch {
      resolve(null);
      return;
    }
    let out = "";
    let settled = false;
    const done = (v) => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        resolve(v);
      }
    };
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      done(null);
    }, TIMEOUT_MS);
    child.on("error", () => done(null));
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.on("close", () => {
      if (!out.trim()) return done(null);
      try {
        done(JSON.parse(out));
      } catch {
        done(null);
      }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

// Sessions started in this process and not yet ended, by ID: their
// payload for mem. OpenCode deletes no session when its process exits
// (opencode run ends that way), so the plugin ends them then, the way an
// editor's SessionEnd would. The exit handler may only work synchronously.
const open = new Map();
process.on("exit", () => {
  for (const payload of open.values()) {
    try {
      spawnSync(memBin(), ["hook", "opencode"], {
        input: JSON.stringify({ event: "session.deleted", ...payload }),
        stdio: ["pipe", "ignore", "ignore"],
        timeout: EXIT_TIMEOUT_MS,
      });
    } catch {
      // Nothing here may break OpenCode's exit.
    }
  }
  open.clear();
});

function textOf(parts) {
  return (parts || [])
    .filter((p) => p && p.type === "text" && !p.synthetic && typeof p.text === "string")
    .map((p) => p.text)
    .join("\n");
}

// The ID prefix of the parts this plugin adds to the messages OpenCode sends.
const PART_PREFIX = "prt_mem_";

// addPart puts a synthetic text part into a message once (by ID), first or last.
function addPart(msg, id, text, first) {
  if (!msg || !Array.isArray(msg.parts) || msg.parts.some((p) => p && p.id === id)) return;
  const info = msg.info || {};
  const part = { id, sessionID: info.sessionID, messageID: info.id, type: "text", text, synthetic: true };
  if (first) msg.parts.unshift(part);
  else msg.parts.push(part);
}

export const MemPlugin = async ({ directory } = {}) => {
  const blocks = new Map(); // sessionID -> recall block ("" when none)
  // sessionID -> (user message ID -> {text, sent}): the prompt-time context
  // of each message. OpenCode rebuilds the conversation for every request,
  // so a context is added again as long as its message is sent; once a
  // request that had it no longer carries the message (compacted away,
  // reverted) it is dropped, and the session's whole map goes when the
  // session ends.
  const prompts = new Map();
  const compacting = new Set(); // sessions whose next messages transform is the compaction's
  const base = (sessionID, dir) => ({ sessionID, directory: dir || directory || process.cwd() });

  const hooks = {
    event: async ({ event } = {}) => {
      const props = (event && event.properties) || {};
      const info = props.info || {};
      switch (event && event.type) {
        case "session.created": {
          const reply = await callMem({ event: "session.created", ...base(info.id, info.directory), parentID: info.parentID });
          blocks.set(info.id, (reply && reply.context) || "");
          if (info.id) open.set(info.id, base(info.id, info.directory));
          break;
        }
        case "session.idle":
          await callMem({ event: "session.idle", ...base(props.sessionID) });
          break;
        case "session.deleted":
          blocks.delete(info.id);
          prompts.delete(info.id);
          compacting.delete(info.id);
          open.delete(info.id);
          await callMem({ event: "session.deleted", ...base(info.id, info.directory) });
          break;
      }
    },

    // Runs before each of the agent's model requests (and once inside a
    // compaction, which gets mem's block through its own hook instead).
    "experimental.chat.messages.transform": async (_input, output) => {
      const messages = output && output.messages;
      if (!Array.isArray(messages)) return;
      const users = messages.filter((m) => m && m.info && m.info.role === "user" && Array.isArray(m.parts));
      const id = users.length ? users[0].info.sessionID : undefined;
      if (!id) return;
      if (compacting.delete(id)) return;
      if (!blocks.has(id)) {
        // The plugin started after the session did: ask for the block once.
        const reply = await callMem({ event: "system", ...base(id) });
        blocks.set(id, (reply && reply.context) || "");
        open.set(id, base(id));
      }
      const block = blocks.get(id);
      if (block) addPart(users[0], PART_PREFIX + "start", block, true);
      const mine = prompts.get(id);
      if (!mine) return;
      const sent = new Set();
      for (const m of users) {
        const extra = mine.get(m.info.id);
        if (!extra) continue;
        addPart(m, PART_PREFIX + "prompt_" + m.info.id, extra.text, false);
        extra.sent = true;
        sent.add(m.info.id);
      }
      // A context registered after these messages were read waits for the next request.
      for (const [msgID, extra] of mine) if (extra.sent && !sent.has(msgID)) mine.delete(msgID);
      if (mine.size === 0) prompts.delete(id);
    },

    "experimental.session.compacting": async (input, output) => {
      const id = input && input.sessionID;
      if (id) compacting.add(id);
      const reply = await callMem({ event: "compacting", ...base(id) });
      if (reply && reply.context && output && Array.isArray(output.context)) output.context.push(reply.context);
    },

    "chat.message": async (input, output) => {
      const text = textOf(output && output.parts);
      if (!input || !input.sessionID || !text) return;
      const reply = await callMem({ event: "chat.message", ...base(input.sessionID), agent: input.agent, text });
      const msgID = (output && output.message && output.message.id) || input.messageID;
      if (!(reply && reply.context && msgID)) return;
      if (!prompts.has(input.sessionID)) prompts.set(input.sessionID, new Map());
      prompts.get(input.sessionID).set(msgID, { text: reply.context, sent: false });
    },

    "tool.execute.after": async (input, output) => {
      if (!input || !input.sessionID) return;
      await callMem({
        event: "tool.execute.after",
        ...base(input.sessionID),
        tool: input.tool,
        args: input.args,
        output: output && typeof output.output === "string" ? output.output : undefined,
        metadata: output && output.metadata,
      });
    },
  };
  // For tests: what the plugin holds per session. A symbol key, so OpenCode,
  // which walks the hooks by name, never sees it.
  hooks[Symbol.for("mem.opencode.state")] = { blocks, prompts, compacting };
  return hooks;
};
