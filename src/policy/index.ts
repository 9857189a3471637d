export { GrantAuthorizer, DEFAULT_GRANT, SPINE_POLICY_VERSION, type TaskGrant } from './grant.js';
