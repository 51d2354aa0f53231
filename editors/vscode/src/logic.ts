// The extension's logic, free of the `vscode` module: where hlsllint is, how the server starts,
// which settings it gets and what the status bar says. extension.ts wires it to VS Code.

import * as fs from "node:fs";
import * as path from "node:path";

/** The settings users change (`hlsllint.*` in settings.json). */
export interface Settings {
  path: string;
  target: string;
  waveSize: number | null;
  configFile: string;
  defines: string[];
  pressureHints: boolean;
}

/** What `vscode.workspace.getConfiguration("hlsllint")` offers (a stub in the tests). */
export interface ConfigurationReader {
  get<T>(section: string): T | undefined;
}

export function readSettings(config: ConfigurationReader): Settings {
  const str = (key: string): string => {
    const v = config.get<unknown>(key);
    return typeof v === "string" ? v.trim() : "";
  };
  const wave = config.get<unknown>("waveSize");
  const defines = config.get<unknown>("defines");
  return {
    path: str("path"),
    target: str("target"),
    waveSize: wave === 32 || wave === 64 ? wave : null,
    configFile: str("configFile"),
    defines: Array.isArray(defines) ? defines.filter((d): d is string => typeof d === "string" && d.trim() !== "") : [],
    pressureHints: config.get<unknown>("pressureHints") !== false,
  };
}

export interface Environment {
  platform: NodeJS.Platform;
  /** The PATH (`Path` on Windows) the editor runs with. */
  pathVariable: string;
  workspaceFolders: string[];
  isFile(p: string): boolean;
}

export function nodeEnvironment(workspaceFolders: string[]): Environment {
  return {
    platform: process.platform,
    pathVariable: process.env.PATH ?? process.env.Path ?? "",
    workspaceFolders,
    isFile: (p) => {
      try {
        return fs.statSync(p).isFile();
      } catch {
        return false;
      }
    },
  };
}

/** Where the executable is looked for in a workspace folder, in order. */
export function venvCandidates(folder: string, platform: NodeJS.Platform): string[] {
  const join = platform === "win32" ? path.win32.join : path.posix.join;
  return [".venv", "venv"].map((venv) =>
    platform === "win32" ? join(folder, venv, "Scripts", "hlsllint.exe") : join(folder, venv, "bin", "hlsllint"),
  );
}

export type Found = { command: string; from: "setting" | "virtualenv" | "PATH" } | { error: string };

/**
 * The hlsllint to run: the `hlsllint.path` setting (relative to the first workspace folder),
 * else a workspace folder's virtualenv (.venv, venv), else the first one on the PATH.
 */
export function findExecutable(settings: Settings, env: Environment): Found {
  const win = env.platform === "win32";
  const p = win ? path.win32 : path.posix;
  if (settings.path) {
    const home = win ? (process.env.USERPROFILE ?? "") : (process.env.HOME ?? "");
    const expanded = settings.path.startsWith("~") && home ? p.join(home, settings.path.slice(1)) : settings.path;
    const command = p.isAbsolute(expanded) || !env.workspaceFolders.length ? expanded : p.join(env.workspaceFolders[0], expanded);
    if (env.isFile(command)) {
      return { command, from: "setting" };
    }
    return { error: `hlsllint.path: ${command} is not a file` };
  }
  for (const folder of env.workspaceFolders) {
    for (const candidate of venvCandidates(folder, env.platform)) {
      if (env.isFile(candidate)) {
        return { command: candidate, from: "virtualenv" };
      }
    }
  }
  const names = win ? ["hlsllint.exe", "hlsllint.cmd", "hlsllint.bat"] : ["hlsllint"];
  for (const dir of env.pathVariable.split(win ? ";" : ":")) {
    if (!dir) continue;
    for (const name of names) {
      const candidate = p.join(dir, name);
      if (env.isFile(candidate)) {
        return { command: candidate, from: "PATH" };
      }
    }
  }
  return {
    error:
      "hlsllint not found: set hlsllint.path, or `pip install hlsllint` into the workspace's .venv or onto the PATH",
  };
}

/** How the language server starts: `hlsllint server` over stdio. */
export function serverCommand(command: string): { command: string; args: string[] } {
  return { command, args: ["server"] };
}

/** What the server reads from `initializationOptions` (hlsllint/server/lsp.py). */
export function initializationOptions(settings: Settings): Record<string, unknown> {
  return {
    pressureHints: settings.pressureHints,
    hlsllint: serverSettings(settings),
  };
}

/** The settings the server applies on top of the config files (also sent on a change). */
export function serverSettings(settings: Settings): Record<string, unknown> {
  return {
    target: settings.target,
    waveSize: settings.waveSize,
    configFile: settings.configFile,
    defines: settings.defines,
  };
}

/** One entry point in the answer to `hlsllint/pressure`. */
export interface EntryFigures {
  name: string;
  stage: string;
  target: string;
  waveSize: number;
  vgprs: number;
  sgprs: number;
  waves: number;
  maxWaves: number;
  limiter: string;
  peakLine: number | null;
}

export interface PressureResult {
  entries: EntryFigures[];
  current: string | null;
}

export const PRESSURE_REQUEST = "hlsllint/pressure";
export const PRESSURE_PAGE_REQUEST = "hlsllint/pressurePage";

/** The status bar's text and tooltip for the answer to `hlsllint/pressure`; null hides it. */
export function statusText(result: PressureResult | null | undefined): { text: string; tooltip: string } | null {
  if (!result || !result.entries.length) {
    return null;
  }
  const entry = result.entries.find((e) => e.name === result.current);
  const tooltip = result.entries
    .map(
      (e) =>
        `${e.name} (${e.stage}): peak ${e.vgprs} VGPRs / ${e.sgprs} SGPRs -> ${e.waves}/${e.maxWaves} waves ` +
        `per SIMD on ${e.target} wave${e.waveSize} (limited by ${e.limiter})` +
        (e.peakLine === null ? "" : `, peak on line ${e.peakLine + 1}`),
    )
    .join("\n");
  if (!entry) {
    const fewest = Math.min(...result.entries.map((e) => e.waves));
    const max = result.entries[0].maxWaves;
    return { text: `$(pulse) ${result.entries.length} entries: ≥${fewest}/${max} waves`, tooltip };
  }
  return { text: `$(pulse) ${entry.name}: ${entry.waves}/${entry.maxWaves} waves · ${entry.vgprs} VGPRs`, tooltip };
}
