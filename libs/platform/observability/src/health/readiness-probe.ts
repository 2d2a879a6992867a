/**
 * A dependency that must answer before the process counts as ready, besides the TypeORM data sources
 * (which are found on their own). Provide a subclass anywhere in the application; `GET /health/ready`
 * finds every provider that is one and runs `check` with the database pings.
 */
export abstract class ReadinessProbe {
  /** Names the dependency in the 503 detail (`not ready: event-store (...)`). */
  abstract readonly name: string;
  /** Resolves when the dependency answers; rejects with the reason otherwise. */
  abstract check(): Promise<void>;
}
