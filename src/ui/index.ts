export { serveUi, type UiServeOptions, type UiServing } from './server.js';
export { auditOf, overviewOf, timelineOf, type AuditView, type Overview, type TaskSummary, type DenialGroup } from './view-data.js';
