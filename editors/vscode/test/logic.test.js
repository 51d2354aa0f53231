// The extension's logic (src/logic.ts, built to dist/test-lib by `npm test`), with what VS Code
// would hand it (its configuration object, the workspace folders, the file system) stubbed.
const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");

const logic = require("../dist/test-lib/logic.js");

/** A stand-in for `vscode.workspace.getConfiguration("hlsllint")`. */
function configuration(values) {
  return { get: (key) => values[key] };
}

function env(files, { platform = "linux", pathVariable = "", folders = ["/ws"] } = {}) {
  return { platform, pathVariable, workspaceFolders: folders, isFile: (p) => files.includes(p) };
}

const DEFAULTS = logic.readSettings(configuration({}));

test("settings: defaults and what users set", () => {
  assert.deepEqual(DEFAULTS, {
    path: "",
    target: "",
    waveSize: null,
    configFile: "",
    defines: [],
    pressureHints: true,
  });
  const s = logic.readSettings(
    configuration({ target: "rdna3", waveSize: 32, configFile: " cfg/h.toml ", defines: ["A=1", "", 7, "B"], pressureHints: false }),
  );
  assert.deepEqual(s, {
    path: "",
    target: "rdna3",
    waveSize: 32,
    configFile: "cfg/h.toml",
    defines: ["A=1", "B"],
    pressureHints: false,
  });
  assert.equal(logic.readSettings(configuration({ waveSize: 48 })).waveSize, null);
});

test("the server starts as `hlsllint server` with the settings as initializationOptions", () => {
  assert.deepEqual(logic.serverCommand("/ws/.venv/bin/hlsllint"), {
    command: "/ws/.venv/bin/hlsllint",
    args: ["server"],
  });
  const s = { ...DEFAULTS, target: "gfx9", waveSize: 64, defines: ["X"], pressureHints: false };
  assert.deepEqual(logic.initializationOptions(s), {
    pressureHints: false,
    hlsllint: { target: "gfx9", waveSize: 64, configFile: "", defines: ["X"] },
  });
});

test("finding hlsllint: the setting first", () => {
  const s = { ...DEFAULTS, path: "tools/hlsllint" };
  assert.deepEqual(logic.findExecutable(s, env(["/ws/tools/hlsllint", "/ws/.venv/bin/hlsllint"])), {
    command: "/ws/tools/hlsllint",
    from: "setting",
  });
  const missing = logic.findExecutable({ ...DEFAULTS, path: "/opt/none" }, env(["/ws/.venv/bin/hlsllint"]));
  assert.match(missing.error, /hlsllint.path: \/opt\/none is not a file/);
});

test("finding hlsllint: the workspace's virtualenv, .venv before venv, before the PATH", () => {
  const both = env(["/ws/.venv/bin/hlsllint", "/ws/venv/bin/hlsllint", "/usr/bin/hlsllint"], { pathVariable: "/usr/bin" });
  assert.deepEqual(logic.findExecutable(DEFAULTS, both), { command: "/ws/.venv/bin/hlsllint", from: "virtualenv" });
  const venv = env(["/ws2/venv/bin/hlsllint"], { folders: ["/ws", "/ws2"] });
  assert.deepEqual(logic.findExecutable(DEFAULTS, venv), { command: "/ws2/venv/bin/hlsllint", from: "virtualenv" });
  const win = env(["C:\\ws\\.venv\\Scripts\\hlsllint.exe"], { platform: "win32", folders: ["C:\\ws"] });
  assert.deepEqual(logic.findExecutable(DEFAULTS, win), {
    command: "C:\\ws\\.venv\\Scripts\\hlsllint.exe",
    from: "virtualenv",
  });
});

test("finding hlsllint: the PATH, else a clear error", () => {
  const onPath = env(["/home/u/.local/bin/hlsllint"], { pathVariable: "/usr/bin::/home/u/.local/bin" });
  assert.deepEqual(logic.findExecutable(DEFAULTS, onPath), { command: "/home/u/.local/bin/hlsllint", from: "PATH" });
  const winPath = env(["C:\\py\\Scripts\\hlsllint.exe"], { platform: "win32", pathVariable: "C:\\x;C:\\py\\Scripts", folders: [] });
  assert.deepEqual(logic.findExecutable(DEFAULTS, winPath), { command: "C:\\py\\Scripts\\hlsllint.exe", from: "PATH" });
  assert.match(logic.findExecutable(DEFAULTS, env([])).error, /hlsllint not found/);
});

const MAIN = {
  name: "main",
  stage: "compute",
  target: "rdna2",
  waveSize: 64,
  vgprs: 40,
  sgprs: 12,
  waves: 12,
  maxWaves: 16,
  limiter: "vgprs",
  peakLine: 9,
};

test("status bar: the entry at the cursor, every entry in the tooltip", () => {
  const shown = logic.statusText({ entries: [MAIN, { ...MAIN, name: "other", waves: 8 }], current: "main" });
  assert.equal(shown.text, "$(pulse) main: 12/16 waves · 40 VGPRs");
  assert.equal(
    shown.tooltip,
    "main (compute): peak 40 VGPRs / 12 SGPRs -> 12/16 waves per SIMD on rdna2 wave64 (limited by vgprs), peak on line 10\n" +
      "other (compute): peak 40 VGPRs / 12 SGPRs -> 8/16 waves per SIMD on rdna2 wave64 (limited by vgprs), peak on line 10",
  );
  const none = logic.statusText({ entries: [MAIN, { ...MAIN, name: "other", waves: 8 }], current: null });
  assert.equal(none.text, "$(pulse) 2 entries: ≥8/16 waves");
  assert.equal(logic.statusText({ entries: [], current: null }), null);
  assert.equal(logic.statusText(null), null);
});
