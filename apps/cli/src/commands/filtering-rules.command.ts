import type { Command } from 'commander';
import type { IngestionFilteringRulesInput } from '@guidepost/contracts-http';
import { CliContext, type CliIo } from '../cli-context';
import { objectOf, readJsonFile } from '../json-file';

export function registerFilteringRuleCommands(program: Command, io: CliIo): void {
  const rules = program.command('filtering-rules').description('Ingestion filtering rules of an account');

  rules
    .command('set')
    .description('Replace the rules with a JSON file: {"mode": "allow"|"deny", "event_names": [...], ...}')
    .requiredOption('--account <id>', 'account id')
    .requiredOption('--file <path>', 'JSON file holding the rules object')
    .action(async (options: { account: string; file: string }, command: Command) => {
      const context = CliContext.of(command, io);
      const client = context.client();
      // The server validates the fields and names any that are wrong.
      const input = objectOf(await readJsonFile(options.file), options.file) as IngestionFilteringRulesInput;
      context.print(await client.setIngestionFilteringRules(options.account, input));
    });
}
