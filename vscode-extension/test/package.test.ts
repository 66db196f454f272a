// `vsce package` must ship only the bundle, the manifest and the README (.vscodeignore).

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as path from "node:path";
import { test } from "node:test";

test("the .vsix contains no stray files", () => {
  const root = path.resolve(__dirname, "..", "..");
  const vsce = path.join(root, "node_modules", ".bin", "vsce");
  const listed = execFileSync(vsce, ["ls"],
                              { cwd: root, encoding: "utf8" });
  const files = listed.split(/\r?\n/).filter((line) => line.trim() !== "").sort();
  const allowed = new Set(["package.json", "README.md", "CHANGELOG.md", "dist/extension.js"]);
  assert.deepEqual(files.filter((f) => !allowed.has(f)), []);
  assert.ok(files.includes("package.json") && files.includes("README.md"));
});
