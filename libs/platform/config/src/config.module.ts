import { type DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig } from './app-config';

/** Makes the one validated configuration injectable everywhere as `AppConfig`. */
@Global()
@Module({})
export class PlatformConfigModule {
  static forRoot(config: AppConfig): DynamicModule {
    return { module: PlatformConfigModule, providers: [{ provide: AppConfig, useValue: config }], exports: [AppConfig] };
  }
}
