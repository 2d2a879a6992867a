import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { DataSource } from 'typeorm';

export interface NamedDataSource {
  readonly name: string;
  readonly dataSource: DataSource;
}

/**
 * Every TypeORM data source registered anywhere in the application, found by looking at the
 * providers once they are all built. Hosts carry different sets of services (standalone has all,
 * a service host one), so readiness must not hard-code which databases exist.
 */
@Injectable()
export class DataSources implements OnApplicationBootstrap {
  private found: NamedDataSource[] = [];

  constructor(private readonly discovery: DiscoveryService) {}

  onApplicationBootstrap(): void {
    const seen = new Set<DataSource>();
    this.found = [];
    for (const wrapper of this.discovery.getProviders()) {
      const instance: unknown = wrapper.instance;
      if (!(instance instanceof DataSource) || seen.has(instance)) continue;
      seen.add(instance);
      this.found.push({ name: nameOf(wrapper.token, instance), dataSource: instance });
    }
  }

  all(): readonly NamedDataSource[] {
    return this.found;
  }
}

/** `segmentDataSource` -> `database:segment`; the unnamed default data source -> `database:default`. */
function nameOf(token: unknown, dataSource: DataSource): string {
  const schema = (dataSource.options as { schema?: string }).schema;
  if (schema) return `database:${schema}`;
  return typeof token === 'string' ? `database:${token.replace(/DataSource$/, '') || 'default'}` : 'database:default';
}
