import "./use-vscode-mock";
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";
import { type Dependencies, OPEN_SETTINGS, ServerController } from "../src/controller";
import type { Interpreter } from "../src/interpreter";
import type { ProbeResult } from "../src/probe";
import { changeSettings, state } from "./vscode-mock";

interface Fake extends Dependencies {
  started: Interpreter[];
  stopped: number;
  logs: string[];
}

function fake(probeResult: ProbeResult = { ok: true }, active?: string): Fake {
  const deps: Fake = {
    started: [],
    stopped: 0,
    logs: [],
    startClient: (interpreter) => {
      deps.started.push(interpreter);
      return Promise.resolve({ stop: () => { deps.stopped += 1; return Promise.resolve(); } });
    },
    probe: () => Promise.resolve(probeResult),
    activeInterpreter: () => Promise.resolve(active),
    log: (message) => { deps.logs.push(message); },
  };
  return deps;
}

beforeEach(() => state.reset());

test("starts with the Python extension's interpreter when none is set", async () => {
  const deps = fake({ ok: true }, "/env/bin/python");
  const controller = new ServerController(deps);
  await controller.restart();
  assert.deepEqual(deps.started, [{ command: "/env/bin/python", source: "python-extension" }]);
  await controller.dispose();
  assert.equal(deps.stopped, 1);
});

test("restarts when the interpreter setting changes, not for inlay hints", async () => {
  const deps = fake();
  const controller = new ServerController(deps);
  await controller.restart();
  state.settings.set("cutile.interpreter", "/opt/py");
  changeSettings(["cutile.interpreter"]);
  await controller.restart(); // waits for the restart queued by the event
  assert.deepEqual(deps.started.map((i) => i.command), ["python3", "/opt/py", "/opt/py"]);
  changeSettings(["cutile.inlayHints"]);
  await controller.restart();
  assert.equal(deps.started.length, 4);
  await controller.dispose();
});

test("a missing cutile shows one actionable error and starts nothing", async () => {
  state.errorChoice = OPEN_SETTINGS;
  const deps = fake({ ok: false, reason: "no-cutile", detail: "No module named 'cutile'" });
  const controller = new ServerController(deps);
  await controller.restart();
  assert.equal(deps.started.length, 0);
  assert.equal(controller.running, false);
  assert.equal(state.errors.length, 1);
  assert.match(state.errors[0] ?? "", /pip install cutile/);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(state.commands, [["workbench.action.openSettings", "cutile.interpreter"]]);
  await controller.dispose();
});

test("cutile.enable = false stops the server", async () => {
  const deps = fake();
  const controller = new ServerController(deps);
  await controller.restart();
  state.settings.set("cutile.enable", false);
  changeSettings(["cutile.enable"]);
  await controller.restart();
  assert.equal(controller.running, false);
  assert.equal(deps.started.length, 1);
  await controller.dispose();
});
