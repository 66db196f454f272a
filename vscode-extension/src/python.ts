// The Python extension's active interpreter, read through its public API when it is installed.

import * as vscode from "vscode";

interface EnvironmentPath {
  path: string;
}

interface PythonApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): EnvironmentPath;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
  };
}

const PYTHON_EXTENSION = "ms-python.python";

async function api(): Promise<PythonApi | undefined> {
  const extension = vscode.extensions.getExtension<PythonApi>(PYTHON_EXTENSION);
  if (extension === undefined) {
    return undefined;
  }
  return extension.isActive ? extension.exports : await extension.activate();
}

export async function activeInterpreter(): Promise<string | undefined> {
  const environments = (await api())?.environments;
  const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
  return environments?.getActiveEnvironmentPath(resource).path;
}

/** Call `listener` when the user picks another interpreter in the Python extension. */
export async function onInterpreterChange(listener: () => void): Promise<vscode.Disposable> {
  const event = (await api())?.environments?.onDidChangeActiveEnvironmentPath;
  return event ? event(listener) : new vscode.Disposable(() => undefined);
}
