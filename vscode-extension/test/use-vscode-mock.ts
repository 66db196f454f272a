// Import this first: `require("vscode")` then loads ./vscode-mock instead of the editor's API.

import Module from "node:module";

type Resolve = (request: string, ...rest: unknown[]) => string;
const loader = Module as unknown as { _resolveFilename: Resolve };
const original = loader._resolveFilename;
loader._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]): string {
  if (request === "vscode") {
    return require.resolve("./vscode-mock");
  }
  return original.call(this, request, ...rest);
};
