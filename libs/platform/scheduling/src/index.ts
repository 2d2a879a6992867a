export { PeriodicTask, type PeriodicTaskOptions } from './periodic-task';
export { settlesWithin } from './settles-within';
