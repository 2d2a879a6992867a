export { DistributedSuite, SERVICE_ROLES, type ServiceRole, type SuiteOptions } from './distributed-suite';
export { infrastructureDir, loadInfrastructure, type Infrastructure } from './infrastructure';
export {
  describeUnexpectedExit,
  ServiceProcess,
  type ProcessExit,
  type ProcessLauncher,
  type ServiceProcessOptions,
  type UnexpectedExit,
} from './service-process';
export { buildLockOf, whileBuildUnchanged } from './build-lock';
export { freeLoopbackPort } from './loopback-port';
export { containerLauncher, containerName, removeSuiteContainers } from './container-launcher';
