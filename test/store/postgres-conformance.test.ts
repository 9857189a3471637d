// The PostgreSQL store passes the store conformance suite (test/store/conformance), unchanged.
import { describeStoreConformance } from './conformance/index.js';
import { postgresBackend } from './postgres-backend.js';

describeStoreConformance('postgres', postgresBackend);
