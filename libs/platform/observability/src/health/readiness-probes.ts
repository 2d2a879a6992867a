import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { ReadinessProbe } from './readiness-probe';

/**
 * Every `ReadinessProbe` provided anywhere in the application, found once all providers are built,
 * so that readiness follows whatever dependencies the host carries (as `DataSources` does).
 */
@Injectable()
export class ReadinessProbes implements OnApplicationBootstrap {
  private found: ReadinessProbe[] = [];

  constructor(private readonly discovery: DiscoveryService) {}

  onApplicationBootstrap(): void {
    const probes = this.discovery.getProviders().map((wrapper): unknown => wrapper.instance);
    this.found = [...new Set(probes.filter((instance): instance is ReadinessProbe => instance instanceof ReadinessProbe))];
  }

  all(): readonly ReadinessProbe[] {
    return this.found;
  }
}
