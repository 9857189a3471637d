export { runConformance, formatScorecard, FAMILIES, type Scorecard, type FamilyRow } from './run.js';
export { loadMap, conformanceMap, type ConformanceMap } from './map.js';
export { SHIPPED_MAPS } from './maps.js';
export { OUTCOMES, type Outcome, type AttemptResult } from './attempt.js';
