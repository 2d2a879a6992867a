import { Presets, SingleBar } from 'cli-progress';
import { Argument, type Command } from 'commander';
import { CONTENT_KINDS, type ContentKind } from '@guidepost/contracts-http';
import { batchesOf, uploadInBatches, type UploadProgress } from '../batch-upload';
import { CliContext, type CliIo } from '../cli-context';
import { readJsonFile, recordsOf } from '../json-file';

export function registerContentCommands(program: Command, io: CliIo): void {
  const content = program
    .command('content')
    .description(`Upsert content records (${CONTENT_KINDS.join(', ')}); the experience kinds keep the studio's fields as given`);

  content
    .command('upsert')
    .description('Create or replace records by id from a JSON file (an array or one object), in batches')
    .addArgument(new Argument('<kind>', 'content kind').choices(CONTENT_KINDS))
    .requiredOption('--account <id>', 'account id')
    .requiredOption('--file <path>', 'JSON file: an array of records or a single record')
    .action(async (kind: ContentKind, options: { account: string; file: string }, command: Command) => {
      const context = CliContext.of(command, io);
      const client = context.client();
      const records = recordsOf(await readJsonFile(options.file), options.file);
      const batches = batchesOf(records);
      // The bar is for people watching a long upload; scripts and single requests get only the JSON.
      const progress = io.stdout.isTTY === true && batches.length > 1 ? progressBar(records.length) : undefined;
      const upserted = await uploadInBatches(
        batches,
        async (batch) => (await client.upsertContent(options.account, kind, batch)).upserted,
        progress,
      );
      context.print({ account_id: options.account, kind, records: records.length, batches: batches.length, upserted });
    });
}

/** A bar on stderr, so stdout stays pure JSON. */
function progressBar(total: number): UploadProgress {
  const bar = new SingleBar({ format: 'upserting [{bar}] {value}/{total} records', hideCursor: true }, Presets.shades_classic);
  bar.start(total, 0);
  return { advance: (records) => bar.increment(records), stop: () => bar.stop() };
}
