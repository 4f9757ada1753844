#!/usr/bin/env node
// Runs the mem binary of this platform's package (@memhq/mem-<os>-<cpu>),
// which npm installed beside this one as an optional dependency. Nothing is
// downloaded; a platform without a package gets one line saying so.
"use strict";

const { spawnSync } = require("child_process");
const os = require("os");

const { optionalDependencies } = require("../package.json");
const pkg = `@memhq/mem-${process.platform}-${process.arch}`;
const exe = process.platform === "win32" ? "mem.exe" : "mem";

function fail(msg) {
  process.stderr.write(`mem: ${msg}\n`);
  process.exit(1);
}

function binary() {
  if (!(pkg in optionalDependencies)) {
    const have = Object.keys(optionalDependencies).map((p) => p.replace("@memhq/mem-", ""));
    fail(`no build for ${process.platform}-${process.arch} (there are: ${have.join(", ")}); ` +
      "with Go: go install github.com/memhq/mem/cmd/mem@latest github.com/memhq/mem/cmd/mem-full@latest");
  }
  try {
    return require.resolve(`${pkg}/bin/${exe}`);
  } catch {
    fail(`${pkg} is not installed (were optional dependencies left out?); ` +
      "install again with: npm install -g @memhq/mem --include=optional");
  }
}

const r = spawnSync(binary(), process.argv.slice(2), { stdio: "inherit", windowsHide: true });
if (r.error) fail(`running ${r.error.path || pkg}: ${r.error.message}`);
if (r.signal) {
  // End the same way the binary did, so the caller sees the signal.
  process.kill(process.pid, r.signal);
  process.exit(128 + (os.constants.signals[r.signal] || 0));
}
process.exit(r.status === null ? 1 : r.status);
