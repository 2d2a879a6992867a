import type { Command } from 'commander';
import { CliContext, type CliIo } from '../cli-context';

export function registerKeyCommands(program: Command, io: CliIo): void {
  const keys = program.command('keys').description('Create and revoke API keys');

  keys
    .command('create')
    .description('Create an API key; its secret is shown only this once')
    .requiredOption('--account <id>', 'account id')
    .action(async (options: { account: string }, command: Command) => {
      const context = CliContext.of(command, io);
      const created = await context.client().createApiKey(options.account);
      const flowsUrl = `${context.baseUrl}/v2/accounts/${encodeURIComponent(created.account_id)}/flows`;
      context.print({ ...created, try_it: `curl -u ${created.key}:${created.secret} ${flowsUrl}` });
    });

  keys
    .command('revoke')
    .description('Revoke an API key')
    .requiredOption('--account <id>', 'account id')
    .requiredOption('--key <key>', 'API key to revoke')
    .action(async (options: { account: string; key: string }, command: Command) => {
      const context = CliContext.of(command, io);
      context.print(await context.client().revokeApiKey(options.account, options.key));
    });
}
