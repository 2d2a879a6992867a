import { Command, CommanderError } from 'commander';
import { DEFAULT_URL, type CliIo } from './cli-context';
import { registerAccountCommands } from './commands/accounts.command';
import { registerContentCommands } from './commands/content.command';
import { registerDeadLetterCommands } from './commands/dead-letters.command';
import { registerFilteringRuleCommands } from './commands/filtering-rules.command';
import { registerKeyCommands } from './commands/keys.command';

export function buildProgram(io: CliIo): Command {
  const program = new Command('guidepost')
    .description('Administer a Guidepost server: accounts, API keys, content and dead letters')
    .option('--url <url>', `server base URL (env GUIDEPOST_URL, default ${DEFAULT_URL})`)
    .option('--token <token>', 'admin token (env GUIDEPOST_ADMIN_TOKEN)')
    .configureOutput({ writeOut: (text) => void io.stdout.write(text), writeErr: (text) => void io.stderr.write(text) })
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
  registerAccountCommands(program, io);
  registerKeyCommands(program, io);
  registerContentCommands(program, io);
  registerFilteringRuleCommands(program, io);
  registerDeadLetterCommands(program, io);
  return program;
}

/** Runs one command line (without `node` and the script); resolves to the process exit code. */
export async function runCli(args: readonly string[], io: CliIo): Promise<number> {
  try {
    await buildProgram(io).parseAsync(args, { from: 'user' });
    return 0;
  } catch (error) {
    // Commander has already printed its own usage errors (and help, which exits with 0).
    if (error instanceof CommanderError) return error.exitCode;
    io.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
