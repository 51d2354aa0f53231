// The extension's entry point (the esbuild bundle VS Code loads) with the `vscode` module
// stubbed: what activate() registers, and what a user sees when hlsllint cannot be found.
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const Module = require("node:module");

const BUNDLE = path.join(__dirname, "..", "dist", "extension.js");

/** A `vscode` stand-in: what the extension calls is recorded; anything else is an empty class. */
function stubVscode(workspaceFolder, settings) {
  const seen = { commands: [], errors: [], statusItems: [], events: 0 };
  const known = {
    StatusBarAlignment: { Left: 1, Right: 2 },
    ViewColumn: { Beside: -2 },
    window: {
      createStatusBarItem: (alignment, priority) => {
        const item = { alignment, priority, shown: false, show() { this.shown = true; }, hide() { this.shown = false; }, dispose() {} };
        seen.statusItems.push(item);
        return item;
      },
      showErrorMessage: (message) => {
        seen.errors.push(message);
        return Promise.resolve(undefined);
      },
      onDidChangeActiveTextEditor: () => (seen.events++, { dispose() {} }),
      onDidChangeTextEditorSelection: () => (seen.events++, { dispose() {} }),
      activeTextEditor: undefined,
    },
    commands: {
      registerCommand: (name) => {
        seen.commands.push(name);
        return { dispose() {} };
      },
    },
    workspace: {
      workspaceFolders: [{ uri: { fsPath: workspaceFolder } }],
      getConfiguration: (section) => {
        assert.equal(section, "hlsllint");
        return { get: (key) => settings[key] };
      },
      onDidChangeTextDocument: () => (seen.events++, { dispose() {} }),
      onDidChangeConfiguration: () => (seen.events++, { dispose() {} }),
    },
  };
  const stub = new Proxy(known, {
    get: (target, key) => (key in target ? target[key] : class {}),
  });
  return { stub, seen };
}

function loadWith(stub) {
  const original = Module._load;
  Module._load = function (request, ...rest) {
    return request === "vscode" ? stub : original.call(this, request, ...rest);
  };
  try {
    delete require.cache[require.resolve(BUNDLE)];
    return require(BUNDLE);
  } finally {
    Module._load = original;
  }
}

test("activate: commands, status bar and a clear message when hlsllint is missing", async () => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), "hlsllint-ext-"));
  const { stub, seen } = stubVscode(empty, { path: path.join(empty, "no-such-hlsllint") });
  const extension = loadWith(stub);
  const context = { subscriptions: [] };
  await extension.activate(context);
  assert.deepEqual(seen.commands, ["hlsllint.showPressure", "hlsllint.restart"]);
  assert.equal(seen.statusItems.length, 1);
  assert.equal(seen.statusItems[0].command, "hlsllint.showPressure");
  assert.equal(seen.statusItems[0].shown, false);
  assert.equal(seen.events, 4);
  assert.deepEqual(seen.errors, [`hlsllint.path: ${path.join(empty, "no-such-hlsllint")} is not a file`]);
  assert.ok(context.subscriptions.length >= 7);
  await extension.deactivate();
  fs.rmSync(empty, { recursive: true, force: true });
});
