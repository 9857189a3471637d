export {
  GRANT_FORMAT,
  BUDGET_DIMENSIONS,
  DEFAULT_GRANT,
  GrantFileError,
  grantFileShape,
  parseGrantFile,
  bindGrant,
  grantDigest,
  type TaskGrant,
  type Grant,
  type GrantSubject,
  type Caveat,
  type Conditions,
  type BudgetDimension,
  type BudgetLimits,
  type BudgetLimitsSpec,
} from './grant.js';
export { CompiledGrant, type CallIdentity, type SeenCall, type GrantFault } from './grant-check.js';
export { attenuate, type Restrictions } from './attenuate.js';
export { CedarPolicySet, type PolicySetOptions, type PolicySource, type LoadedPolicy, type CedarRequest, type CedarVerdict } from './cedar/policy-set.js';
export { PolicyLoadError, type PolicyFault } from './cedar/load-error.js';
export { cedarSchemaOf, CEDAR_NAMESPACE, RESOURCE_TYPES, type ResourceType } from './cedar/schema.js';
export { cedarRequestsOf } from './cedar/request.js';
export { PolicyAuthorizer, type PolicyAuthorizerOptions } from './authorizer.js';
export { decisionError, type PolicyDecision, type RefusalCode } from './decision.js';
export { ApprovalDesk, type ApprovalState } from './approvals.js';
export { ApprovalQuestions, type ApprovalQuestionsOptions, type AskRefusal } from './approval-asks.js';
export { BudgetGate, DEFAULT_ESTIMATE, type AdmitOptions, type BudgetReservation } from './budgets.js';
export type {
  ApprovalRecord,
  ApprovalStatus,
  ApprovalBinding,
  ApprovalStore,
  ApprovalAsk,
  AskUse,
  BudgetStore,
  BudgetUsageRow,
  DenialStore,
  GrantStore,
  PolicyStores,
  ReserveResult,
  Usage,
} from './stores.js';
export { PolicyEngine, type PolicyEngineOptions } from './engine.js';
export { DEFAULT_POLICY_SOURCE } from './default-policy.js';
