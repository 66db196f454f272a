// The wire contract vscode-languageclient relies on, checked against the real Python server:
// spawn `python -m cutile.lsp` exactly as the extension does and talk JSON-RPC over its stdio.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "node:test";
import {
  createProtocolConnection,
  InitializeRequest,
  InitializedNotification,
  PublishDiagnosticsNotification,
  type PublishDiagnosticsParams,
  ShutdownRequest,
  ExitNotification,
  DidOpenTextDocumentNotification,
  DidChangeTextDocumentNotification,
  StreamMessageReader,
  StreamMessageWriter,
} from "vscode-languageserver-protocol/node";
import { serverCommand } from "../src/launch";
import { serverPython } from "./python";

const BAD = [
  "import cutile as ct",
  "from cutile import Mut, Tensor, f32",
  "",
  "",
  "@ct.kernel",
  "def copy(z: Mut[Tensor[f32, (128,)]], x) -> None:",
  "    z.store(ct.load_tile_like(x, z))",
  "",
].join("\n");

test("the server publishes CT107 for an unannotated parameter, then clears it", async () => {
  const server = serverCommand(serverPython(), undefined);
  const child = spawn(server.command, server.args, { ...server.options, stdio: "pipe" });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => { stderr += chunk.toString(); });
  const connection = createProtocolConnection(new StreamMessageReader(child.stdout),
                                              new StreamMessageWriter(child.stdin));
  const published: PublishDiagnosticsParams[] = [];
  const waiters: (() => void)[] = [];
  connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
    published.push(params);
    waiters.splice(0).forEach((wake) => wake());
  });
  connection.listen();
  const next = (version: number): Promise<PublishDiagnosticsParams> => new Promise((resolve) => {
    const check = (): void => {
      const hit = published.find((p) => p.version === version);
      if (hit) { resolve(hit); } else { waiters.push(check); }
    };
    check();
  });

  try {
    const init = await connection.sendRequest(InitializeRequest.type, {
      processId: process.pid, rootUri: null, capabilities: {}, initializationOptions: {},
    });
    assert.equal(init.serverInfo?.name, "cutile-lsp");
    assert.ok(init.capabilities.codeActionProvider);
    await connection.sendNotification(InitializedNotification.type, {});
    // outside the repository: its own [tool.cutile-check] excludes vscode-extension/
    const uri = pathToFileURL(path.join(os.tmpdir(), "protocol_example.py")).toString();
    await connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: "python", version: 1, text: BAD },
    });
    const first = await next(1);
    assert.equal(first.uri, uri);
    assert.deepEqual(first.diagnostics.map((d) => [d.code, d.range.start, d.range.end]), [
      ["CT107", { line: 5, character: 38 }, { line: 5, character: 39 }],
    ]);
    await connection.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri, version: 2 },
      contentChanges: [{ text: BAD.replace(", x)", ", x: Tensor[f32, (-1,)])") }],
    });
    assert.deepEqual((await next(2)).diagnostics, []);
    await connection.sendRequest(ShutdownRequest.type);
    await connection.sendNotification(ExitNotification.type);
  } catch (error) {
    throw new Error(`${String(error)}\nserver stderr:\n${stderr}`);
  } finally {
    connection.dispose();
    child.kill();
  }
});
