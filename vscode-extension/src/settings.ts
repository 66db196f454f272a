// Typed extension settings, read once per (re)start. The server gets the subset it uses as
// initializationOptions and, on change, through workspace/didChangeConfiguration.

export type Severity = "error" | "warning" | "information" | "hint" | "off";
export type Trace = "off" | "messages" | "verbose";

export interface CutileSettings {
  enable: boolean;
  interpreter: string;
  severityOverrides: Record<string, Severity>;
  inlayHints: boolean;
  trace: Trace;
}

/** The part of the settings the language server reads (see cutile/lsp/options.py). */
export interface ServerSettings {
  enable: boolean;
  severityOverrides: Record<string, Severity>;
  inlayHints: boolean;
}

/** What `vscode.workspace.getConfiguration("cutile")` offers; a plain object in tests. */
export interface ConfigurationLike {
  get<T>(section: string): T | undefined;
}

const SEVERITIES: readonly string[] = ["error", "warning", "information", "hint", "off"];
const TRACES: readonly string[] = ["off", "messages", "verbose"];

export function readSettings(config: ConfigurationLike): CutileSettings {
  const overrides = config.get<unknown>("severityOverrides");
  const trace = config.get<string>("trace.server") ?? "off";
  return {
    enable: config.get<boolean>("enable") !== false,
    interpreter: (config.get<string>("interpreter") ?? "").trim(),
    severityOverrides: cleanOverrides(overrides),
    inlayHints: config.get<boolean>("inlayHints") !== false,
    trace: (TRACES.includes(trace) ? trace : "off") as Trace,
  };
}

export function serverSettings(settings: CutileSettings): ServerSettings {
  return {
    enable: settings.enable,
    severityOverrides: settings.severityOverrides,
    inlayHints: settings.inlayHints,
  };
}

function cleanOverrides(raw: unknown): Record<string, Severity> {
  const out: Record<string, Severity> = {};
  if (typeof raw !== "object" || raw === null) {
    return out;
  }
  for (const [code, severity] of Object.entries(raw as Record<string, unknown>)) {
    if (typeof severity === "string" && SEVERITIES.includes(severity)) {
      out[code.toUpperCase()] = severity as Severity;
    }
  }
  return out;
}

/** Settings whose change needs a new server process (the rest is sent to the running one). */
export const RESTART_SETTINGS = ["cutile.interpreter", "cutile.trace.server"];
