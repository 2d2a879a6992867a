export { withDeadline } from './deadline';
export { classifyFailure, errorChain, type FailureClass, PermanentFailure, reasonOf, TransientFailure } from './failure-class';
