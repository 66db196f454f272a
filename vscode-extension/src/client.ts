// The vscode-languageclient side: `<python> -m cutile.lsp` over stdio for Python documents.

import * as vscode from "vscode";
import {
  LanguageClient,
  type LanguageClientOptions,
  RevealOutputChannelOn,
  type ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";
import type { RunningClient } from "./controller";
import type { Interpreter } from "./interpreter";
import { serverCommand } from "./launch";
import { type CutileSettings, serverSettings } from "./settings";

export const CLIENT_ID = "cutile"; // also the prefix of the cutile.trace.server setting

export async function startClient(
  interpreter: Interpreter,
  settings: CutileSettings,
  output: vscode.LogOutputChannel,
): Promise<RunningClient> {
  const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "python" },
      { scheme: "untitled", language: "python" },
    ],
    outputChannel: output,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    initializationOptions: serverSettings(settings),
    synchronize: { configurationSection: CLIENT_ID },
  };
  const server: ServerOptions = {
    ...serverCommand(interpreter.command, cwd),
    transport: TransportKind.stdio,
  };
  const client = new LanguageClient(CLIENT_ID, "cutile", server, clientOptions);
  await client.start();
  return client;
}
