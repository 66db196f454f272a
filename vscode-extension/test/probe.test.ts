import assert from "node:assert/strict";
import { test } from "node:test";
import { classify, explain, probe } from "../src/probe";
import { serverPython } from "./python";

test("a missing interpreter is reported as such", async () => {
  const result = await probe("/nonexistent/bin/python3");
  assert.equal(result.ok, false);
  assert.equal(!result.ok && result.reason, "no-interpreter");
  const message = explain(result, { command: "/nonexistent/bin/python3", source: "setting" });
  assert.match(message, /cutile\.interpreter/);
});

test("a missing cutile package gives the pip command for that interpreter", () => {
  const error = Object.assign(new Error("exit 1"), { code: 1 }) as unknown as NodeJS.ErrnoException;
  const result = classify(error, "Traceback...\nModuleNotFoundError: No module named 'cutile'\n");
  assert.equal(!result.ok && result.reason, "no-cutile");
  const message = explain(result, { command: "/env/bin/python", source: "python-extension" });
  assert.match(message, /cutile is not installed in \/env\/bin\/python/);
  assert.match(message, /\/env\/bin\/python -m pip install cutile/);
});

test("the project's interpreter passes the probe", async () => {
  assert.deepEqual(await probe(serverPython()), { ok: true });
});
