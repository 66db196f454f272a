// The interpreter that runs the server in tests: $CUTILE_PYTHON, else the repository's .venv.

import * as path from "node:path";

export function serverPython(): string {
  return process.env.CUTILE_PYTHON ?? path.resolve(__dirname, "..", "..", "..", ".venv", "bin",
                                                   "python");
}
