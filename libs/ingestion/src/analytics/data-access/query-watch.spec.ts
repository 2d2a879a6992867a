import { chdbClickHouse, type ClickHouseTarget } from '../../events/data-access/clickhouse-targets.spec-cases';
import { QueryWatch } from './query-watch';

/** A statement that runs for minutes, with no time limit of its own: only a stop in the store ends it early. */
const ENDLESS = 'SELECT count() FROM numbers(100000000000) WHERE sipHash64(number) % 7 = 3 FORMAT TabSeparated';

describe('QueryWatch, against the chdb engine behind its HTTP front', () => {
  let target: ClickHouseTarget;

  beforeAll(async () => {
    target = await chdbClickHouse('guidepost-query-watch-');
  });

  afterAll(() => target.release());

  /** The store's queries running under this id (the chdb front tags its engine's statements with it). */
  async function running(queryId: string): Promise<unknown[]> {
    const result = await target.client.query({
      query: "SELECT query_id FROM system.processes WHERE query_id = {id:String} OR Settings['log_comment'] = {id:String}",
      query_params: { id: queryId },
      format: 'JSONEachRow',
    });
    return result.json();
  }

  /** Runs the endless statement under a watch; resolves with its failure and the watch, once the watch has ended. */
  async function watched(queryId: string, maxExecutionSeconds: number, abandoned?: AbortSignal) {
    const watch = new QueryWatch(target.client, queryId, { maxExecutionSeconds, maxMemoryBytes: 1024 ** 3 }, abandoned);
    const started = Date.now();
    const failure = await target.client.exec({ query: ENDLESS, query_id: queryId, abort_signal: watch.signal }).then(
      () => undefined,
      (error: unknown) => error,
    );
    await watch.end();
    return { failure, watch, elapsedMs: Date.now() - started };
  }

  it('stops the query in the store once its time budget and a moment have passed', async () => {
    const { failure, watch, elapsedMs } = await watched('watched-budget', 0.5);
    expect(failure).toMatchObject({ code: '394' });
    expect(watch.stoppedBy).toBe('time budget');
    expect(elapsedMs).toBeLessThan(5_000);
    expect(await running('watched-budget')).toEqual([]);
  }, 30_000);

  it('stops the query in the store when its client goes away, and ends once the store has stopped it', async () => {
    const clientGone = new AbortController();
    setTimeout(() => clientGone.abort(), 300);
    const { failure, watch } = await watched('watched-client', 60, clientGone.signal);
    expect(failure).toMatchObject({ code: '394' });
    expect(watch.stoppedBy).toBe('client gone');
    expect(await running('watched-client')).toEqual([]);
  }, 30_000);
});
