import { MetricsRegistry } from '@guidepost/platform-observability';
import { reportWaitingDeadLetters } from './dead-letter-metrics';
import type { WaitingCount } from './dead-letter-store';

async function gaugeLines(registry: MetricsRegistry): Promise<string[]> {
  const text = await registry.getSingleMetricAsString('guidepost_dead_letters_waiting');
  return text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
}

describe('guidepost_dead_letters_waiting', () => {
  it('counts each schema at scrape time, one gauge for every schema of the process, and reads 0 once all are replayed', async () => {
    const registry = new MetricsRegistry();
    let ingestion: WaitingCount[] = [
      { topic: 'guidepost.mail.mail-requested.v1', group: '', count: 2 },
      { topic: 'guidepost.events.events-accepted.v1', group: 'ingestion.event-sink', count: 1 },
    ];
    reportWaitingDeadLetters(registry, 'ingestion', () => Promise.resolve(ingestion));
    reportWaitingDeadLetters(registry, 'segment', () => Promise.resolve([]));
    expect(await gaugeLines(registry)).toEqual([
      'guidepost_dead_letters_waiting{service="ingestion",topic="guidepost.mail.mail-requested.v1",group=""} 2',
      'guidepost_dead_letters_waiting{service="ingestion",topic="guidepost.events.events-accepted.v1",group="ingestion.event-sink"} 1',
    ]);
    ingestion = [{ topic: 'guidepost.events.events-accepted.v1', group: 'ingestion.event-sink', count: 1 }];
    expect(await gaugeLines(registry)).toEqual([
      'guidepost_dead_letters_waiting{service="ingestion",topic="guidepost.mail.mail-requested.v1",group=""} 0',
      'guidepost_dead_letters_waiting{service="ingestion",topic="guidepost.events.events-accepted.v1",group="ingestion.event-sink"} 1',
    ]);
  });

  it('keeps the last values of a schema it cannot read, and still answers the scrape', async () => {
    const registry = new MetricsRegistry();
    let down = false;
    reportWaitingDeadLetters(registry, 'content', () =>
      down ? Promise.reject(new Error('connection refused')) : Promise.resolve([{ topic: 't', group: 'g', count: 3 }]),
    );
    expect(await gaugeLines(registry)).toEqual(['guidepost_dead_letters_waiting{service="content",topic="t",group="g"} 3']);
    down = true;
    expect(await gaugeLines(registry)).toEqual(['guidepost_dead_letters_waiting{service="content",topic="t",group="g"} 3']);
  });
});
