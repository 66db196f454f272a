// Entry point: one output channel, one controller, the restart and show-log commands.

import * as vscode from "vscode";
import { startClient } from "./client";
import { ServerController } from "./controller";
import { probe } from "./probe";
import { activeInterpreter, onInterpreterChange } from "./python";

let controller: ServerController | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel("cutile", { log: true });
  controller = new ServerController({
    startClient: (interpreter, settings) => startClient(interpreter, settings, output),
    probe,
    activeInterpreter,
    log: (message) => output.info(message),
  });
  const running = controller;
  context.subscriptions.push(
    output,
    running,
    vscode.commands.registerCommand("cutile.restart", () => running.restart()),
    vscode.commands.registerCommand("cutile.showLog", () => output.show()),
    await onInterpreterChange(() => {
      if (vscode.workspace.getConfiguration("cutile").get<string>("interpreter", "") === "") {
        void running.restart();
      }
    }),
  );
  await running.restart();
}

export async function deactivate(): Promise<void> {
  await controller?.dispose();
  controller = undefined;
}
