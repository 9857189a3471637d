export { serveUi, type UiServeOptions, type UiServing } from './server.js';
export { overviewOf, timelineOf, type Overview, type TaskSummary, type DenialGroup } from './view-data.js';
