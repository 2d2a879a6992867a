import { type DynamicModule, Module, type ValueProvider } from '@nestjs/common';

@Module({})
class HostProvidedModule {}

/**
 * Makes values visible to every module: how a host binds a port to the adapter its shape uses (say
 * `JobRegistryClient` to the ingestion service's internal HTTP API).
 */
export function globalProviders(providers: ValueProvider[]): DynamicModule {
  return { module: HostProvidedModule, global: true, providers, exports: providers.map((provider) => provider.provide) };
}
