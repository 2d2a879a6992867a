import type { Command } from 'commander';
import { CliContext, type CliIo } from '../cli-context';

export function registerAccountCommands(program: Command, io: CliIo): void {
  const accounts = program.command('accounts').description('Create and list accounts');

  accounts
    .command('create')
    .description('Create an account')
    .requiredOption('--name <name>', 'display name')
    .option('--id <id>', 'account id (letters, digits, _ and -; generated when omitted)')
    .action(async (options: { name: string; id?: string }, command: Command) => {
      const context = CliContext.of(command, io);
      context.print(await context.client().createAccount({ name: options.name, id: options.id }));
    });

  accounts
    .command('list')
    .description('List accounts')
    .action(async (_options: unknown, command: Command) => {
      const context = CliContext.of(command, io);
      context.print(await context.client().listAccounts());
    });
}
