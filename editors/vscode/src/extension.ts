// The VS Code side: starts `hlsllint server`, keeps its settings in sync, shows the current entry
// point's waves in the status bar and the pressure page in a webview.

import * as vscode from "vscode";
import { LanguageClient, LanguageClientOptions, ServerOptions, TransportKind } from "vscode-languageclient/node";

import {
  PRESSURE_PAGE_REQUEST,
  PRESSURE_REQUEST,
  PressureResult,
  findExecutable,
  initializationOptions,
  nodeEnvironment,
  readSettings,
  serverCommand,
  statusText,
} from "./logic";

let client: LanguageClient | undefined;
let status: vscode.StatusBarItem | undefined;
let timer: ReturnType<typeof setTimeout> | undefined;

function folders(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
}

async function start(context: vscode.ExtensionContext): Promise<void> {
  const settings = readSettings(vscode.workspace.getConfiguration("hlsllint"));
  const found = findExecutable(settings, nodeEnvironment(folders()));
  if ("error" in found) {
    void vscode.window.showErrorMessage(found.error);
    return;
  }
  const run = { ...serverCommand(found.command), transport: TransportKind.stdio };
  const serverOptions: ServerOptions = { run, debug: run };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: "file", language: "hlsl" }, { scheme: "untitled", language: "hlsl" }],
    initializationOptions: initializationOptions(settings),
    // A change of the settings reaches the server as `{"hlsllint": {target, waveSize, ...}}`
    // (workspace/didChangeConfiguration), which it applies as it does initializationOptions.
    synchronize: { configurationSection: "hlsllint" },
  };
  client = new LanguageClient("hlsllint", "hlsllint", serverOptions, clientOptions);
  await client.start();
  context.subscriptions.push(client);
  scheduleStatus(0);
}

async function stop(): Promise<void> {
  const c = client;
  client = undefined;
  if (c) {
    await c.stop();
  }
}

function scheduleStatus(delay = 300): void {
  if (timer) clearTimeout(timer);
  timer = setTimeout(() => void updateStatus(), delay);
}

async function updateStatus(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!status) return;
  if (!client || !editor || editor.document.languageId !== "hlsl") {
    status.hide();
    return;
  }
  try {
    const result = await client.sendRequest<PressureResult | null>(PRESSURE_REQUEST, {
      textDocument: { uri: editor.document.uri.toString() },
      position: { line: editor.selection.active.line, character: editor.selection.active.character },
    });
    const shown = statusText(result);
    if (!shown) {
      status.hide();
      return;
    }
    status.text = shown.text;
    status.tooltip = shown.tooltip;
    status.show();
  } catch {
    status.hide();
  }
}

async function showPressure(context: vscode.ExtensionContext): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!client || !editor || editor.document.languageId !== "hlsl") {
    void vscode.window.showInformationMessage("hlsllint: open an HLSL file first");
    return;
  }
  const page = await client.sendRequest<{ html: string } | null>(PRESSURE_PAGE_REQUEST, {
    textDocument: { uri: editor.document.uri.toString() },
  });
  if (!page) {
    void vscode.window.showWarningMessage("hlsllint: no pressure page for this file");
    return;
  }
  const name = editor.document.uri.path.split("/").pop() ?? "shader";
  const panel = vscode.window.createWebviewPanel("hlsllintPressure", `Pressure: ${name}`, vscode.ViewColumn.Beside, {
    enableScripts: true,
  });
  panel.webview.html = page.html;
  context.subscriptions.push(panel);
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
  status.command = "hlsllint.showPressure";
  context.subscriptions.push(
    status,
    vscode.commands.registerCommand("hlsllint.showPressure", () => showPressure(context)),
    vscode.commands.registerCommand("hlsllint.restart", async () => {
      await stop();
      await start(context);
    }),
    vscode.window.onDidChangeActiveTextEditor(() => scheduleStatus(0)),
    vscode.window.onDidChangeTextEditorSelection(() => scheduleStatus()),
    vscode.workspace.onDidChangeTextDocument(() => scheduleStatus(600)),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration("hlsllint.path") || e.affectsConfiguration("hlsllint.pressureHints")) {
        await stop();
        await start(context);
      } else if (e.affectsConfiguration("hlsllint")) {
        scheduleStatus(500);
      }
    }),
  );
  await start(context);
}

export async function deactivate(): Promise<void> {
  await stop();
}
