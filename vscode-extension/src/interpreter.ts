// Which Python runs the server: the cutile.interpreter setting, else the Python extension's
// active interpreter, else python3 on PATH.

import * as os from "node:os";

export type InterpreterSource = "setting" | "python-extension" | "default";

export interface Interpreter {
  command: string;
  source: InterpreterSource;
}

export const DEFAULT_PYTHON = "python3";

/** Expand ${workspaceFolder}, ${userHome} and a leading ~ in a configured path. */
export function expandPath(value: string, workspaceFolder: string | undefined): string {
  let out = value.replace(/\$\{userHome\}/g, os.homedir());
  if (workspaceFolder !== undefined) {
    out = out.replace(/\$\{workspaceFolder\}/g, workspaceFolder);
  }
  if (out === "~" || out.startsWith("~/")) {
    out = os.homedir() + out.slice(1);
  }
  return out;
}

export async function resolveInterpreter(
  setting: string,
  workspaceFolder: string | undefined,
  activeFromPythonExtension: () => Promise<string | undefined>,
): Promise<Interpreter> {
  if (setting !== "") {
    return { command: expandPath(setting, workspaceFolder), source: "setting" };
  }
  let active: string | undefined;
  try {
    active = await activeFromPythonExtension();
  } catch {
    active = undefined; // the Python extension failed: fall back rather than not start
  }
  if (active !== undefined && active !== "") {
    return { command: active, source: "python-extension" };
  }
  return { command: DEFAULT_PYTHON, source: "default" };
}
