import assert from "node:assert/strict";
import { test } from "node:test";
import { readSettings, serverSettings } from "../src/settings";

function config(values: Record<string, unknown>) {
  return { get: <T>(key: string) => values[key] as T | undefined };
}

test("defaults when nothing is set", () => {
  const settings = readSettings(config({}));
  assert.deepEqual(settings, {
    enable: true, interpreter: "", severityOverrides: {}, inlayHints: true, trace: "off",
  });
});

test("invalid overrides and traces are dropped, codes upper-cased", () => {
  const settings = readSettings(config({
    severityOverrides: { ct2: "warning", CT301: "loud", CT305: "off" },
    "trace.server": "everything",
    interpreter: "  /venv/bin/python ",
    inlayHints: false,
  }));
  assert.deepEqual(settings.severityOverrides, { CT2: "warning", CT305: "off" });
  assert.equal(settings.trace, "off");
  assert.equal(settings.interpreter, "/venv/bin/python");
  assert.deepEqual(serverSettings(settings), {
    enable: true, severityOverrides: { CT2: "warning", CT305: "off" }, inlayHints: false,
  });
});
