// The client side against the real `hlsllint server` over stdio: found as the extension finds it
// (the repository's .venv, else the PATH), started with the extension's initializationOptions,
// then the requests the status bar and the pressure page make, and a settings change.
const test = require("node:test");
const assert = require("node:assert/strict");
const cp = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { pathToFileURL } = require("node:url");
const rpc = require("vscode-jsonrpc/node");

const logic = require("../dist/test-lib/logic.js");

const REPO = path.resolve(__dirname, "..", "..", "..");
const SHADER = `RWStructuredBuffer<float4> Out : register(u0);
Texture2D<float4> Tex : register(t0);
SamplerState S : register(s0);

float4 blend(float4 a, float4 b, float t)
{
    return a * t + b * (1.0 - t);
}

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float4 a = Tex.SampleLevel(S, float2(id.x, 0) / 64.0, 0);
    float4 b = Tex.SampleLevel(S, float2(id.x, 1) / 64.0, 0);
    Out[id.x] = blend(a, b, 0.5) + (sign(a.x) < 0 ? 1.0 : 0.0);
}
`;

function startServer(settings) {
  const found = logic.findExecutable(settings, logic.nodeEnvironment([REPO]));
  assert.ok(!("error" in found), found.error);
  const { command, args } = logic.serverCommand(found.command);
  const proc = cp.spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
  const connection = rpc.createMessageConnection(
    new rpc.StreamMessageReader(proc.stdout),
    new rpc.StreamMessageWriter(proc.stdin),
  );
  const diagnostics = new Map();
  const waiters = [];
  connection.onNotification("textDocument/publishDiagnostics", (params) => {
    diagnostics.set(params.uri, params.diagnostics);
    waiters.splice(0).forEach((w) => w());
  });
  connection.onNotification(() => {});
  connection.onRequest(() => null);
  connection.listen();
  const published = async (uri, until) => {
    const deadline = Date.now() + 30000;
    while (!(diagnostics.has(uri) && until(diagnostics.get(uri)))) {
      assert.ok(Date.now() < deadline, "no diagnostics in time");
      await new Promise((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
    return diagnostics.get(uri);
  };
  return { proc, connection, published };
}

test("the extension's requests against the real server", { timeout: 120000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hlsllint-vscode-"));
  fs.writeFileSync(path.join(dir, "hlsllint.toml"), 'select = ["HL"]\n');
  fs.writeFileSync(path.join(dir, "wave64.toml"), 'select = ["HL"]\nwave-size = 64\ntarget = "rdna3"\n');
  const settings = logic.readSettings({
    get: (key) => ({ target: "rdna2", waveSize: 32, defines: ["UNUSED=1"] })[key],
  });
  const { proc, connection, published } = startServer(settings);
  try {
    const init = await connection.sendRequest("initialize", {
      processId: process.pid,
      rootUri: pathToFileURL(dir).href,
      capabilities: {},
      initializationOptions: { ...logic.initializationOptions(settings), diagnosticMode: "push" },
    });
    assert.equal(init.serverInfo.name, "hlsllint");
    await connection.sendNotification("initialized", {});
    const uri = pathToFileURL(path.join(dir, "cs.hlsl")).href;
    await connection.sendNotification("textDocument/didOpen", {
      textDocument: { uri, languageId: "hlsl", version: 1, text: SHADER },
    });
    const diags = await published(uri, (ds) => ds.length > 0);
    assert.ok(diags.some((d) => d.code === "HL105"), JSON.stringify(diags));

    // The status bar: the cursor in `blend`, which `main` inlines.
    const result = await connection.sendRequest(logic.PRESSURE_REQUEST, {
      textDocument: { uri },
      position: { line: 6, character: 4 },
    });
    assert.equal(result.current, "main");
    assert.deepEqual(
      [result.entries[0].name, result.entries[0].target, result.entries[0].waveSize],
      ["main", "rdna2", 32],
    );
    const shown = logic.statusText(result);
    assert.match(shown.text, /^\$\(pulse\) main: \d+\/\d+ waves · \d+ VGPRs$/);
    assert.match(shown.tooltip, /on rdna2 wave32/);

    // The webview's page.
    const page = await connection.sendRequest(logic.PRESSURE_PAGE_REQUEST, { textDocument: { uri } });
    assert.match(page.html.trimStart(), /^<!doctype html>/i);

    // A settings change, as vscode-languageclient sends it (`synchronize.configurationSection`).
    await connection.sendNotification("workspace/didChangeConfiguration", {
      settings: { hlsllint: { ...settings, target: "", waveSize: null, configFile: "wave64.toml" } },
    });
    let after;
    for (let i = 0; i < 50; i++) {
      after = await connection.sendRequest(logic.PRESSURE_REQUEST, { textDocument: { uri } });
      if (after.entries[0].waveSize === 64) break;
    }
    assert.deepEqual([after.entries[0].target, after.entries[0].waveSize], ["rdna3", 64]);

    await connection.sendRequest("shutdown");
    await connection.sendNotification("exit");
  } finally {
    connection.dispose();
    proc.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
