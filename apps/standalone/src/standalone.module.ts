import { type DynamicModule, Module } from '@nestjs/common';
import { ContentModule } from '@guidepost/content';
import { GatewayModule, OpenApiModule } from '@guidepost/gateway';
import { IngestionModule } from '@guidepost/ingestion';
import { BlobModule } from '@guidepost/platform-blob';
import { InProcessBusModule } from '@guidepost/platform-bus';
import { ClickHouseModule } from '@guidepost/platform-clickhouse';
import { type AppConfig, PlatformConfigModule } from '@guidepost/platform-config';
import { PlatformHttpModule } from '@guidepost/platform-http';
import { MailModule } from '@guidepost/platform-mail';
import { ObservabilityModule } from '@guidepost/platform-observability';
import { ProfileModule } from '@guidepost/profile';
import { SegmentModule } from '@guidepost/segment';

/**
 * Every role in one process: the gateway's conventions in front, every service behind it, the
 * in-process bus between them and the folder blob store. Each service still owns its own schema and
 * talks to the others only through ports and bus messages, exactly as in the distributed shape.
 */
@Module({})
export class StandaloneModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: StandaloneModule,
      imports: [
        PlatformConfigModule.forRoot(config),
        ObservabilityModule,
        PlatformHttpModule,
        InProcessBusModule,
        ClickHouseModule,
        BlobModule.forRoot(config),
        MailModule.forRoot(config),
        GatewayModule,
        OpenApiModule,
        ContentModule,
        SegmentModule,
        ProfileModule,
        IngestionModule,
      ],
    };
  }
}
