export { AppConfig, type KafkaBatchFetch, type S3Settings, type ServiceName, type TlsSettings } from './app-config';
export { EnvironmentSchema, type Environment } from './config.schema';
export { ConfigurationError, loadConfig } from './load-config';
export { PlatformConfigModule } from './config.module';
export { StartupError } from './startup-error';
export { TrustedProxies } from './trusted-proxies';
