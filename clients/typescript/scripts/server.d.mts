export function python(): string;
export function startServer(options?: { args?: string[]; keys?: object }): Promise<{
  url: string;
  stop: () => Promise<void>;
  log: () => string;
}>;
