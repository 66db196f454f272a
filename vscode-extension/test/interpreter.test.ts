import assert from "node:assert/strict";
import * as os from "node:os";
import { test } from "node:test";
import { expandPath, resolveInterpreter } from "../src/interpreter";

test("the setting wins and is expanded", async () => {
  const got = await resolveInterpreter("${workspaceFolder}/.venv/bin/python", "/w",
                                       () => Promise.resolve("/other/python"));
  assert.deepEqual(got, { command: "/w/.venv/bin/python", source: "setting" });
});

test("then the Python extension, then python3", async () => {
  assert.deepEqual(await resolveInterpreter("", "/w", () => Promise.resolve("/env/python")),
                   { command: "/env/python", source: "python-extension" });
  assert.deepEqual(await resolveInterpreter("", "/w", () => Promise.resolve(undefined)),
                   { command: "python3", source: "default" });
  assert.deepEqual(await resolveInterpreter("", "/w", () => Promise.reject(new Error("x"))),
                   { command: "python3", source: "default" });
});

test("home directory shorthands", () => {
  assert.equal(expandPath("~/py/bin/python", undefined), `${os.homedir()}/py/bin/python`);
  assert.equal(expandPath("${userHome}/p", undefined), `${os.homedir()}/p`);
});
