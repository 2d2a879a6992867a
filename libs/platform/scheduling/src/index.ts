export { PeriodicTask, type PeriodicTaskOptions } from './periodic-task';
