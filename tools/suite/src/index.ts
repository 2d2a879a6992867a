export { DistributedSuite, SERVICE_ROLES, type ServiceRole, type SuiteOptions } from './distributed-suite';
export { infrastructureDir, loadInfrastructure, type Infrastructure } from './infrastructure';
export { ServiceProcess, type ProcessExit, type ProcessLauncher } from './service-process';
export { freeLoopbackPort } from './loopback-port';
export { containerLauncher, containerName, removeSuiteContainers } from './container-launcher';
