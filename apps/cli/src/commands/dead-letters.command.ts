import { Argument, type Command, Option } from 'commander';
import {
  DEAD_LETTER_PAGE_MAX,
  DEAD_LETTER_SERVICES,
  DEAD_LETTER_STATUSES,
  type DeadLetterFilter,
  type DeadLetterService,
  type DeadLetterStatus,
  type DeadLetterSummary,
} from '@guidepost/contracts-http';
import { CliContext, CliUsageError, type CliIo } from '../cli-context';

interface ListOptions {
  readonly service?: DeadLetterService;
  readonly topic?: string;
  readonly group?: string;
  readonly status?: DeadLetterStatus;
  readonly limit?: number;
  readonly cursor?: string;
}

interface ReplayOptions {
  readonly all?: boolean;
  readonly topic?: string;
  readonly group?: string;
}

export function registerDeadLetterCommands(program: Command, io: CliIo): void {
  const deadLetters = program
    .command('dead-letters')
    .description('Messages given up on (by an outbox relay or a consumer group): list, show and replay them');

  deadLetters
    .command('list')
    .description("List dead letters, newest first: one service's (a page; --cursor for the next) or every service's")
    .addOption(new Option('--service <service>', 'only this service').choices(DEAD_LETTER_SERVICES))
    .option('--topic <topic>', 'only this topic')
    .option('--group <group>', 'only what this consumer group gave up on')
    .addOption(new Option('--status <status>', 'only waiting or only replayed ones').choices(DEAD_LETTER_STATUSES))
    .option('--limit <n>', `at most this many (1-${DEAD_LETTER_PAGE_MAX}, default 50)`, limitOf)
    .option('--cursor <cursor>', 'the next_cursor of the previous page (with --service)')
    .action(async (options: ListOptions, command: Command) => {
      const context = CliContext.of(command, io);
      const client = context.client();
      const { service, cursor, ...query } = options;
      if (service !== undefined) {
        context.print(await client.listDeadLetters(service, { ...query, cursor }));
        return;
      }
      if (cursor !== undefined) throw new CliUsageError('--cursor: give --service too (a cursor pages through one service)');
      // Every service's first page, merged newest first; a service that cannot answer is named after the rest.
      const pages = await Promise.allSettled(DEAD_LETTER_SERVICES.map((name) => client.listDeadLetters(name, query)));
      const listed: DeadLetterSummary[] = [];
      const failures: string[] = [];
      let more = false;
      pages.forEach((page, index) => {
        if (page.status === 'rejected') {
          failures.push(`${DEAD_LETTER_SERVICES[index]}: ${page.reason instanceof Error ? page.reason.message : String(page.reason)}`);
          return;
        }
        listed.push(...page.value.dead_letters);
        more ||= page.value.next_cursor !== null;
      });
      listed.sort((a, b) => (a.failed_at === b.failed_at ? 0 : a.failed_at < b.failed_at ? 1 : -1));
      const limit = options.limit ?? 50;
      context.print({ dead_letters: listed.slice(0, limit), more: more || listed.length > limit });
      if (failures.length > 0) throw new Error(`could not list the dead letters of ${failures.join('; ')}`);
    });

  deadLetters
    .command('show')
    .description('Show one dead letter with its payload and headers')
    .addArgument(new Argument('<service>', 'the service that keeps it').choices(DEAD_LETTER_SERVICES))
    .argument('<id>', 'its id (from list)')
    .action(async (service: DeadLetterService, id: string, _options: unknown, command: Command) => {
      const context = CliContext.of(command, io);
      context.print(await context.client().getDeadLetter(service, id));
    });

  deadLetters
    .command('replay')
    .description('Deliver a dead letter again (to the consumer group that gave it up, or through the relay), or --all waiting ones')
    .addArgument(new Argument('<service>', 'the service that keeps it').choices(DEAD_LETTER_SERVICES))
    .argument('[id]', 'its id (from list)')
    .option('--all', 'every waiting dead letter of the service (narrowed by --topic and --group)')
    .option('--topic <topic>', 'with --all: only this topic')
    .option('--group <group>', 'with --all: only what this consumer group gave up on')
    .action(async (service: DeadLetterService, id: string | undefined, options: ReplayOptions, command: Command) => {
      const context = CliContext.of(command, io);
      if (options.all === true) {
        if (id !== undefined) throw new CliUsageError('replay: give an id or --all, not both');
        const filter: DeadLetterFilter = { topic: options.topic, group: options.group };
        context.print(await context.client().replayDeadLetters(service, filter));
        return;
      }
      if (id === undefined) throw new CliUsageError('replay: give the id of a dead letter, or --all');
      if (options.topic !== undefined || options.group !== undefined) throw new CliUsageError('--topic and --group narrow --all only');
      context.print(await context.client().replayDeadLetter(service, id));
    });
}

function limitOf(text: string): number {
  const limit = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(limit >= 1 && limit <= DEAD_LETTER_PAGE_MAX))
    throw new CliUsageError(`--limit: must be an integer from 1 to ${DEAD_LETTER_PAGE_MAX}`);
  return limit;
}
