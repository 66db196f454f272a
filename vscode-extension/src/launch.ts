// How the server process is started: `<python> -m cutile.lsp`, talking LSP over stdio.

export const SERVER_MODULE = "cutile.lsp";

export interface ServerCommand {
  command: string;
  args: string[];
  options: { cwd?: string; env: NodeJS.ProcessEnv };
}

export function serverCommand(python: string, cwd: string | undefined): ServerCommand {
  return {
    command: python,
    args: ["-m", SERVER_MODULE],
    options: { cwd, env: { ...process.env, PYTHONUNBUFFERED: "1" } },
  };
}
