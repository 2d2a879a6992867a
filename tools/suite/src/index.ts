export { DistributedSuite, SERVICE_ROLES, type ServiceRole, type SuiteOptions } from './distributed-suite';
export { infrastructureDir, loadInfrastructure, type Infrastructure } from './infrastructure';
export { ServiceProcess, type ProcessExit } from './service-process';
export { freeLoopbackPort } from './loopback-port';
