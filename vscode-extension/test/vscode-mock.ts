// The slice of the `vscode` API the controller uses, with knobs and records for assertions.

type Listener<T> = (value: T) => unknown;

export class Disposable {
  constructor(private readonly callback: () => unknown) {}
  dispose(): void {
    this.callback();
  }
}

class Emitter<T> {
  private listeners: Listener<T>[] = [];
  readonly event = (listener: Listener<T>): Disposable => {
    this.listeners.push(listener);
    return new Disposable(() => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    });
  };
  fire(value: T): void {
    for (const listener of this.listeners) {
      listener(value);
    }
  }
}

export const state = {
  settings: new Map<string, unknown>(),
  errorChoice: undefined as string | undefined,
  errors: [] as string[],
  commands: [] as unknown[][],
  configurationChanged: new Emitter<{ affectsConfiguration(section: string): boolean }>(),
  reset(): void {
    this.settings.clear();
    this.errorChoice = undefined;
    this.errors = [];
    this.commands = [];
  },
};

export const workspace = {
  workspaceFolders: [{ uri: { fsPath: "/project" } }],
  getConfiguration(section: string) {
    return {
      get<T>(key: string, fallback?: T): T | undefined {
        const value = state.settings.get(`${section}.${key}`);
        return (value === undefined ? fallback : value) as T | undefined;
      },
    };
  },
  onDidChangeConfiguration: state.configurationChanged.event,
};

export const window = {
  showErrorMessage(message: string, ..._items: string[]): Promise<string | undefined> {
    state.errors.push(message);
    return Promise.resolve(state.errorChoice);
  },
};

export const commands = {
  executeCommand(...args: unknown[]): Promise<void> {
    state.commands.push(args);
    return Promise.resolve();
  },
};

/** Tell listeners that `changed` settings changed, as VS Code does after an edit. */
export function changeSettings(changed: string[]): void {
  state.configurationChanged.fire({
    affectsConfiguration: (section: string) =>
      changed.some((c) => c === section || c.startsWith(section + ".")),
  });
}
