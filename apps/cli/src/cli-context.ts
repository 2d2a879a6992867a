import type { Command } from 'commander';
import { AdminClient } from '@guidepost/contracts-http';

export const DEFAULT_URL = 'http://127.0.0.1:8080';

/** Where the CLI reads its environment and writes its output; the real process, or a test's fakes. */
export interface CliIo {
  readonly env: NodeJS.ProcessEnv;
  readonly stdout: { write(text: string): unknown; readonly isTTY?: boolean };
  readonly stderr: { write(text: string): unknown };
}

/** A mistake in how the CLI was called (as opposed to an answer of the server). */
export class CliUsageError extends Error {
  override readonly name = 'CliUsageError';
}

interface GlobalOptions {
  readonly url?: string;
  readonly token?: string;
}

/** What every command needs: the server address, an authenticated client and JSON output. */
export class CliContext {
  readonly baseUrl: string;
  private readonly token: string | undefined;

  constructor(
    readonly io: CliIo,
    options: GlobalOptions,
  ) {
    this.baseUrl = baseUrlOf(options.url ?? io.env['GUIDEPOST_URL'] ?? DEFAULT_URL);
    this.token = options.token ?? (io.env['GUIDEPOST_ADMIN_TOKEN'] || undefined);
  }

  /** The action's context, from the global options given anywhere on the command line. */
  static of(command: Command, io: CliIo): CliContext {
    return new CliContext(io, command.optsWithGlobals<GlobalOptions>());
  }

  client(): AdminClient {
    if (this.token === undefined) {
      throw new CliUsageError('an admin token is required: pass --token <token> or set GUIDEPOST_ADMIN_TOKEN');
    }
    return new AdminClient(this.baseUrl, this.token);
  }

  /** Results go to stdout as JSON, so scripts can pipe them (e.g. into `jq`). */
  print(value: unknown): void {
    this.io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }
}

function baseUrlOf(text: string): string {
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new CliUsageError(`--url: '${text}' is not an absolute http(s) URL such as ${DEFAULT_URL}`);
  }
  return url.href.replace(/\/+$/, '');
}
