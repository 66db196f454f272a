// Starts, restarts and stops the language server as settings and interpreters change. It talks
// to the language client only through ClientFactory, so tests run it against a mocked `vscode`.

import * as vscode from "vscode";
import { type Interpreter, resolveInterpreter } from "./interpreter";
import { explain, type ProbeResult } from "./probe";
import { type CutileSettings, RESTART_SETTINGS, readSettings } from "./settings";

export interface RunningClient {
  stop(): Promise<void>;
}

export interface Dependencies {
  startClient(interpreter: Interpreter, settings: CutileSettings): Promise<RunningClient>;
  probe(python: string): Promise<ProbeResult>;
  activeInterpreter(): Promise<string | undefined>;
  log(message: string): void;
}

export const SELECT_INTERPRETER = "Select Interpreter";
export const OPEN_SETTINGS = "Open Settings";

export class ServerController implements vscode.Disposable {
  private client: RunningClient | undefined;
  private pending: Promise<void> = Promise.resolve();
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly deps: Dependencies) {
    this.subscriptions.push(
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration("cutile.enable") ||
            RESTART_SETTINGS.some((s) => event.affectsConfiguration(s))) {
          void this.restart();
        }
      }),
    );
  }

  /** Start (or restart) the server; calls are serialized so two restarts never overlap. */
  restart(): Promise<void> {
    this.pending = this.pending.then(() => this.doRestart()).catch((error: unknown) => {
      this.deps.log(`cutile: restart failed: ${String(error)}`);
    });
    return this.pending;
  }

  get running(): boolean {
    return this.client !== undefined;
  }

  private async doRestart(): Promise<void> {
    await this.stopClient();
    const settings = readSettings(vscode.workspace.getConfiguration("cutile"));
    if (!settings.enable) {
      this.deps.log("cutile: disabled by the cutile.enable setting");
      return;
    }
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const interpreter = await resolveInterpreter(settings.interpreter, folder,
                                                 () => this.deps.activeInterpreter());
    this.deps.log(`cutile: using ${interpreter.command} (${interpreter.source})`);
    const check = await this.deps.probe(interpreter.command);
    if (!check.ok) {
      const message = explain(check, interpreter);
      this.deps.log(message);
      void this.offerFix(message);
      return;
    }
    this.client = await this.deps.startClient(interpreter, settings);
  }

  private async offerFix(message: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(message, SELECT_INTERPRETER, OPEN_SETTINGS);
    if (choice === SELECT_INTERPRETER) {
      await vscode.commands.executeCommand("python.setInterpreter");
    } else if (choice === OPEN_SETTINGS) {
      await vscode.commands.executeCommand("workbench.action.openSettings", "cutile.interpreter");
    }
  }

  private async stopClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client !== undefined) {
      await client.stop();
    }
  }

  async dispose(): Promise<void> {
    for (const subscription of this.subscriptions) {
      subscription.dispose();
    }
    await this.pending;
    await this.stopClient();
  }
}
