// Before starting the server, check that the chosen interpreter can import cutile.lsp, so a
// missing install gives one actionable message instead of a crashed client.

import { execFile } from "node:child_process";
import type { Interpreter } from "./interpreter";

export type ProbeResult =
  | { ok: true }
  | { ok: false; reason: "no-interpreter" | "no-cutile" | "failed"; detail: string };

export const PROBE_SCRIPT = "import cutile.lsp.server";

export function probe(python: string, timeoutMs = 20000): Promise<ProbeResult> {
  return new Promise((resolve) => {
    execFile(python, ["-c", PROBE_SCRIPT], { timeout: timeoutMs }, (error, _stdout, stderr) => {
      if (error === null) {
        resolve({ ok: true });
        return;
      }
      resolve(classify(error as NodeJS.ErrnoException, String(stderr)));
    });
  });
}

export function classify(error: NodeJS.ErrnoException, stderr: string): ProbeResult {
  if (error.code === "ENOENT" || error.code === "EACCES") {
    return { ok: false, reason: "no-interpreter", detail: error.message };
  }
  if (/ModuleNotFoundError: No module named '(cutile|pygls|lsprotocol)/.test(stderr)) {
    return { ok: false, reason: "no-cutile", detail: lastLine(stderr) };
  }
  return { ok: false, reason: "failed", detail: lastLine(stderr) || error.message };
}

function lastLine(text: string): string {
  const lines = text.trim().split(/\r?\n/);
  return lines[lines.length - 1] ?? "";
}

/** The message shown when the server cannot start with `interpreter`. */
export function explain(result: ProbeResult, interpreter: Interpreter): string {
  if (result.ok) {
    return "";
  }
  const where = describe(interpreter);
  switch (result.reason) {
    case "no-interpreter":
      return `cutile: cannot run ${where}. Set "cutile.interpreter" to a Python 3.11+ ` +
        "interpreter, or select one with the Python extension.";
    case "no-cutile":
      return `cutile is not installed in ${where} (${result.detail}). Install it there with ` +
        `"${interpreter.command} -m pip install cutile", or point "cutile.interpreter" at an ` +
        "environment that has it.";
    case "failed":
      return `cutile: the language server cannot start with ${where}: ${result.detail}`;
  }
}

function describe(interpreter: Interpreter): string {
  switch (interpreter.source) {
    case "setting":
      return `${interpreter.command} (from the "cutile.interpreter" setting)`;
    case "python-extension":
      return `${interpreter.command} (the Python extension's selected interpreter)`;
    case "default":
      return `${interpreter.command} (no interpreter configured)`;
  }
}
