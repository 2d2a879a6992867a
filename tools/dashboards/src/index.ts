export { ALERTS, RUNBOOK_PAGE, type AlertDefinition } from './alerts';
export { generatedFiles } from './generate';
export { metricNamesOf } from './promql';
