import { api, createAccount, type TestAccount } from '../e2e/support';
import { type AsyncAcknowledgement, completedJob, createSegment, memberIds, segmentPath } from '../e2e/support-segments';
import { getProfile, propertiesOf, userPath } from '../e2e/support-people';
import { delay, missingNumbers, Tracker, useSpecSuite } from './support';

/**
 * `kill -9` of each process of the distributed shape while clients track events, update profiles and
 * add users to a segment: after the process is started again, every acknowledged event is stored, every
 * acknowledged profile update is readable, and every acknowledged segment job completes with its users
 * in the segment. What a client sees meanwhile is a refusal (503 from the gateway, or no answer while
 * the gateway itself is down), never an acknowledgement that is later lost.
 */
describe('kill -9 of each service under load', () => {
  const spec = useSpecSuite();

  it.each(['ingestion-0', 'profile', 'segment', 'content', 'gateway'])(
    'loses nothing acknowledged when %s is killed and restarted',
    async (name) => {
      const { suite } = spec;
      const account = await createAccount();
      const tracker = new Tracker(account);
      const profiles = new ProfileWriter(account);
      const segments = new SegmentAdder(account, (await createSegment(account)).id);
      const load = Promise.all([tracker.run(4), profiles.run(), segments.run()]);

      try {
        await delay(2_000);
        const victim = suite.process(name);
        await victim.stop('SIGKILL');
        await delay(1_000);
        await victim.start();
        await delay(2_000);
      } finally {
        // Also when the service could not be restarted: clients left writing would hold the run open.
        tracker.stop();
        profiles.stop();
        segments.stop();
        await load;
      }

      expect(tracker.acknowledged.length).toBeGreaterThan(20);
      expect(await missingNumbers(suite, account.id, tracker.acknowledged)).toEqual([]);

      expect(profiles.lastAcknowledged).toBeGreaterThan(0);
      const written = propertiesOf(await getProfile(account, profiles.userId), 'user_id', profiles.userId);
      // Writes are sequential: the profile holds the last acknowledged one, or one sent after it.
      expect(written['seq']).toBeGreaterThanOrEqual(profiles.lastAcknowledged);

      expect(segments.acknowledged.length).toBeGreaterThan(0);
      for (const ack of segments.acknowledged) await completedJob(account, ack.job, 180_000);
      const members = new Set(await memberIds(account, segments.segmentId));
      expect(segments.acknowledged.flatMap((ack) => ack.userIds).filter((id) => !members.has(id))).toEqual([]);
    },
    360_000,
  );
});

/** Patches one profile with an increasing `seq`, one request at a time; remembers the last acknowledged. */
class ProfileWriter {
  readonly userId = 'killed-profile';
  lastAcknowledged = 0;
  private stopped = false;

  constructor(private readonly account: TestAccount) {}

  async run(): Promise<void> {
    for (let seq = 1; !this.stopped; seq += 1) {
      const response = await api(this.account, 'PATCH', userPath(this.userId, 'profile'), { json: { seq } }).catch(() => undefined);
      // An answer whose body the kill cut off is no acknowledgement.
      const read = await response?.arrayBuffer().then(
        () => true,
        () => false,
      );
      if (response?.status === 200 && read) this.lastAcknowledged = seq;
      else await delay(100);
    }
  }

  stop(): void {
    this.stopped = true;
  }
}

/** Adds small batches of users to a segment; remembers the batches whose job was acknowledged (202). */
class SegmentAdder {
  readonly acknowledged: { job: AsyncAcknowledgement; userIds: string[] }[] = [];
  private stopped = false;

  constructor(
    private readonly account: TestAccount,
    readonly segmentId: string,
  ) {}

  async run(): Promise<void> {
    for (let batch = 1; !this.stopped; batch += 1) {
      const userIds = Array.from({ length: 10 }, (_, index) => `member-${batch}-${index}`);
      const response = await api(this.account, 'POST', segmentPath(this.segmentId, 'add_user_ids'), { json: { user_ids: userIds } }).catch(
        () => undefined,
      );
      if (response?.status === 202) {
        // The 202's body is the acknowledgement (a body cut off by the kill is none); its job is looked
        // at once the killed process is back.
        const job = await (response.json() as Promise<AsyncAcknowledgement>).catch(() => undefined);
        if (job) this.acknowledged.push({ job, userIds });
      } else {
        await response?.arrayBuffer().catch(() => undefined);
        await delay(100);
      }
      await delay(50);
    }
  }

  stop(): void {
    this.stopped = true;
  }
}
